package io.basalt.remoting.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JSON header against the official rocketmq-remoting 5.2.0 {@code RemotingCommand} (fastjson 1.2.83
 * underneath) on every character fastjson escapes, or might: equal bytes when each side writes, equal
 * commands when each side reads the other's, and equal commands from header text written the lenient
 * ways fastjson reads (single quotes, unquoted names, {@code \x} escapes).
 */
class JsonHeaderGoldenTest {

    /** Every BMP char once (C0 controls, U+007F-U+009F, U+2028/U+2029, lone surrogates), then non-BMP ones. */
    private static final String EVERY_CHARACTER;

    static {
        StringBuilder text = new StringBuilder(0x10000 + 2 * 0x1100);
        for (int c = 0; c <= 0xFFFF; c++) {
            text.append((char) c);
        }
        for (int codePoint = 0x10000; codePoint <= Character.MAX_CODE_POINT; codePoint += 251) {
            text.appendCodePoint(codePoint);
        }
        EVERY_CHARACTER = text.toString();
    }

    private static org.apache.rocketmq.remoting.protocol.RemotingCommand official(String remark, HashMap<String, String> ext) {
        org.apache.rocketmq.remoting.protocol.RemotingCommand cmd =
            org.apache.rocketmq.remoting.protocol.RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE, null);
        cmd.setSerializeTypeCurrentRPC(org.apache.rocketmq.remoting.protocol.SerializeType.JSON);
        cmd.setOpaque(7);
        cmd.setVersion(RemotingVersion.CURRENT);
        cmd.setRemark(remark);
        cmd.setExtFields(ext == null ? null : new HashMap<>(ext));
        return cmd;
    }

    private static RemotingCommand basalt(String remark, HashMap<String, String> ext) {
        RemotingCommand cmd = RemotingCommand.request(RequestCode.SEND_MESSAGE);
        cmd.setSerializeType(SerializeType.JSON);
        cmd.setOpaque(7);
        cmd.setRemark(remark);
        cmd.setExtFields(ext == null ? null : new HashMap<>(ext));
        return cmd;
    }

    private static org.apache.rocketmq.remoting.protocol.RemotingCommand officialDecode(byte[] frame) throws Exception {
        return org.apache.rocketmq.remoting.protocol.RemotingCommand.decode(ByteBuffer.wrap(frame, 4, frame.length - 4).slice());
    }

    private static void assertSameCommand(org.apache.rocketmq.remoting.protocol.RemotingCommand theirs, RemotingCommand ours) {
        assertEquals(theirs.getCode(), ours.code());
        assertEquals(theirs.getLanguage().name(), ours.language().name());
        assertEquals(theirs.getVersion(), ours.version());
        assertEquals(theirs.getOpaque(), ours.opaque());
        assertEquals(theirs.getFlag(), ours.flag());
        assertEquals(theirs.getRemark(), ours.remark());
        assertEquals(theirs.getExtFields(), ours.extFields());
    }

    @Test
    void everyCharacterInRemarkAndExtFieldsIsWrittenAndReadAsTheOfficialCodecDoes() throws Exception {
        List<String> samples = List.of(EVERY_CHARACTER, "", "\u0000", "\u001f", "\u007f", "\u2028\u2029", "\ud800",
            "\udc00\ud800", "é中\ud83d\ude00", "\"\\/");
        for (String text : samples) {
            HashMap<String, String> ext = new HashMap<>();
            ext.put("value", text);
            ext.put(text + "#key", "v");
            ext.put("empty", "");
            byte[] theirs = official(text, ext).encode().array();
            byte[] ours = basalt(text, ext).encode();
            assertArrayEquals(theirs, ours, () -> "expected " + new String(theirs, StandardCharsets.UTF_8)
                .substring(0, Math.min(400, theirs.length)));
            assertSameCommand(officialDecode(theirs), RemotingCommand.decodeFrame(theirs));
            assertSameCommand(officialDecode(ours), RemotingCommand.decodeFrame(ours));
        }
    }

    @Test
    void extremeNumbersInTheHeaderMatch() throws Exception {
        for (int value : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            org.apache.rocketmq.remoting.protocol.RemotingCommand theirs = official(null, null);
            theirs.setCode(value);
            theirs.setOpaque(value);
            theirs.setFlag(value);
            theirs.setVersion(value);
            RemotingCommand ours = basalt(null, null);
            ours.setCode(value);
            ours.setOpaque(value);
            ours.setFlag(value);
            ours.setVersion(value);
            assertArrayEquals(theirs.encode().array(), ours.encode());
            assertSameCommand(theirs, RemotingCommand.decodeFrame(theirs.encode().array()));
        }
    }

    private static byte[] frame(String headerJson) {
        byte[] header = headerJson.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + header.length).putInt(4 + header.length).putInt(header.length).put(header).array();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{code:310,extFields:{'a':'\\x41\\v\\0\\7\\F\\/\\'',b:\"\\u001f\\u001F\\u00e9\"},flag:0,language:'JAVA',opaque:9,"
            + "remark:\"it's\",serializeTypeCurrentRPC:'JSON',version:453}",
        "{'code':11,'language':'CPP','opaque':-3,'flag':1,'version':0,'extFields':{'topic':'T\u0001\u2028','raw':'tab\there'}}",
        " {\n \"opaque\" : 5 , \"code\" : \"12\" , \"flag\" : 2 , \"language\" : \"GO\" , \"remark\" : \"\\ud83d\\ude00\" } ",
        "{\"code\":0,\"extFields\":{},\"flag\":1,\"language\":\"RUST\",\"opaque\":0,\"remark\":\"\",\"version\":479,\"unknown\":{\"x\":[1]}}"
    })
    void headersWrittenTheWaysFastjsonReadsAreRead(String headerJson) throws Exception {
        byte[] wire = frame(headerJson);
        assertSameCommand(officialDecode(wire), RemotingCommand.decodeFrame(wire));
    }
}
