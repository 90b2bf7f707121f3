/*
 * RocketMQ 5.2.0's SQL92 message selector (MessageSelector.bySql), written from its documented grammar:
 * the same tokens, keywords, precedence and associativity. Semantics (types, null handling, what is refused
 * when compiled) live in io.basalt.broker.filter.SqlCompiler; this file only says what parses.
 *
 * Precedence, loosest first: OR, AND, equality (= <> IS [NOT] NULL), comparison (> >= < <=, [NOT] BETWEEN,
 * [NOT] IN, [NOT] CONTAINS / STARTSWITH / ENDSWITH), unary (+ - NOT), then literals, properties and
 * parentheses. Operators of one level chain left to right. NOT is unary and binds tighter than a
 * comparison: "NOT a > 5" is "(NOT a) > 5", which the compiler refuses, as RocketMQ does.
 *
 * As RocketMQ's parser, the selector rule does not require the end of input: text after the first complete
 * expression is not read.
 */
grammar SqlSelector;

selector : orExpression ;

orExpression : andExpression (OR andExpression)* ;

andExpression : equalityExpression (AND equalityExpression)* ;

equalityExpression : comparisonExpression equalityTail* ;

equalityTail
    : EQ comparisonExpression           # equal
    | NE comparisonExpression           # notEqual
    | IS NULL                           # isNull
    | IS NOT NULL                       # isNotNull
    ;

comparisonExpression : unaryExpression comparisonTail* ;

comparisonTail
    : op=(GT | GE | LT | LE) unaryExpression                                  # compare
    | NOT? op=(CONTAINS | STARTSWITH | ENDSWITH) stringLiteral                  # textMatch
    | NOT? BETWEEN low=unaryExpression AND high=unaryExpression               # between
    | NOT? IN LPAREN stringLiteral (COMMA stringLiteral)* RPAREN              # in
    ;

unaryExpression
    : PLUS unaryExpression              # plus
    | MINUS unaryExpression             # negate
    | NOT unaryExpression               # not
    | primaryExpression                 # primary
    ;

primaryExpression
    : literal                           # constant
    | ID                                # property
    | LPAREN orExpression RPAREN         # parenthesized
    ;

literal
    : stringLiteral                     # string
    | DECIMAL_LITERAL                   # decimal
    | FLOATING_POINT_LITERAL            # floating
    | TRUE                              # true
    | FALSE                             # false
    | NULL                              # null
    ;

stringLiteral : STRING_LITERAL ;

// Keywords come before ID: a word that is a keyword in any case is the keyword.
NOT : N O T ;
AND : A N D ;
OR : O R ;
BETWEEN : B E T W E E N ;
IN : I N ;
TRUE : T R U E ;
FALSE : F A L S E ;
NULL : N U L L ;
IS : I S ;
CONTAINS : C O N T A I N S ;
STARTSWITH : S T A R T S W I T H ;
ENDSWITH : E N D S W I T H ;

DECIMAL_LITERAL : '0' | [1-9] [0-9]* [lL]? ;
FLOATING_POINT_LITERAL
    : [0-9]+ '.' [0-9]* EXPONENT?
    | '.' [0-9]+ EXPONENT?
    | [0-9]+ EXPONENT
    ;
fragment EXPONENT : E [+-]? [0-9]+ ;
STRING_LITERAL : '\'' ( '\'\'' | ~'\'' )* '\'' ;

ID : [a-zA-Z_$] [a-zA-Z0-9_$]* ;

EQ : '=' ;
NE : '<>' ;
GE : '>=' ;
GT : '>' ;
LE : '<=' ;
LT : '<' ;
LPAREN : '(' ;
RPAREN : ')' ;
COMMA : ',' ;
PLUS : '+' ;
MINUS : '-' ;

WHITESPACE : [ \t\n\r\f]+ -> skip ;
// As RocketMQ's: a line comment ends with a line break (one at the very end of input is not a comment).
LINE_COMMENT : '--' ~[\n\r]* ('\n' | '\r' | '\r\n') -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;

fragment A : [aA] ; fragment B : [bB] ; fragment C : [cC] ; fragment D : [dD] ; fragment E : [eE] ;
fragment F : [fF] ; fragment H : [hH] ; fragment I : [iI] ; fragment L : [lL] ; fragment N : [nN] ;
fragment O : [oO] ; fragment R : [rR] ; fragment S : [sS] ; fragment T : [tT] ; fragment U : [uU] ;
fragment W : [wW] ;
