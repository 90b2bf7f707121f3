package io.basalt.remoting.protocol;

import java.util.Map;

/**
 * Header of {@link RequestCode#SEND_MESSAGE_V2} and {@link RequestCode#SEND_BATCH_MESSAGE}: the
 * {@link SendMessageRequestHeader} fields under one-letter names, as RocketMQ clients send them.
 * a producerGroup, b topic, c defaultTopic, d defaultTopicQueueNums, e queueId, f sysFlag,
 * g bornTimestamp, h flag, i properties, j reconsumeTimes, k unitMode, l maxReconsumeTimes, m batch,
 * n brokerName.
 */
public final class SendMessageRequestHeaderV2 implements CommandHeader {
    private String a;
    private String b;
    private String c;
    private Integer d;
    private Integer e;
    private Integer f;
    private Long g;
    private Integer h;
    private String i;
    private Integer j;
    private Boolean k;
    private Integer l;
    private Boolean m;
    private String n;

    public static SendMessageRequestHeaderV2 decode(Map<String, String> fields) throws RemotingCommandException {
        SendMessageRequestHeaderV2 v2 = new SendMessageRequestHeaderV2();
        v2.a = HeaderFields.requireString(fields, "a");
        v2.b = HeaderFields.requireString(fields, "b");
        v2.c = HeaderFields.requireString(fields, "c");
        v2.d = HeaderFields.requireInt32(fields, "d");
        v2.e = HeaderFields.requireInt32(fields, "e");
        v2.f = HeaderFields.requireInt32(fields, "f");
        v2.g = HeaderFields.requireInt64(fields, "g");
        v2.h = HeaderFields.requireInt32(fields, "h");
        v2.i = HeaderFields.string(fields, "i");
        v2.j = HeaderFields.int32(fields, "j");
        v2.k = HeaderFields.bool(fields, "k");
        v2.l = HeaderFields.int32(fields, "l");
        v2.m = HeaderFields.bool(fields, "m");
        v2.n = HeaderFields.string(fields, "n");
        return v2;
    }

    @Override
    public void encode(FieldWriter out) {
        HeaderFields.put(out, "a", a);
        HeaderFields.put(out, "b", b);
        HeaderFields.put(out, "c", c);
        HeaderFields.put(out, "d", d);
        HeaderFields.put(out, "e", e);
        HeaderFields.put(out, "f", f);
        HeaderFields.put(out, "g", g);
        HeaderFields.put(out, "h", h);
        HeaderFields.put(out, "i", i);
        HeaderFields.put(out, "j", j);
        HeaderFields.put(out, "k", k);
        HeaderFields.put(out, "l", l);
        HeaderFields.put(out, "m", m);
        HeaderFields.put(out, "n", n);
    }

    /** The long-named form, as RocketMQ's {@code createSendMessageRequestHeaderV1}; absent k and m read as false. */
    public SendMessageRequestHeader toV1() {
        SendMessageRequestHeader v1 = new SendMessageRequestHeader();
        v1.setProducerGroup(a);
        v1.setTopic(b);
        v1.setDefaultTopic(c);
        v1.setDefaultTopicQueueNums(d);
        v1.setQueueId(e);
        v1.setSysFlag(f);
        v1.setBornTimestamp(g);
        v1.setFlag(h);
        v1.setProperties(i);
        v1.setReconsumeTimes(j);
        v1.setUnitMode(Boolean.TRUE.equals(k));
        v1.setMaxReconsumeTimes(l);
        v1.setBatch(Boolean.TRUE.equals(m));
        v1.setBrokerName(n);
        return v1;
    }

    public String getA() {
        return a;
    }

    public void setA(String a) {
        this.a = a;
    }

    public String getB() {
        return b;
    }

    public void setB(String b) {
        this.b = b;
    }

    public String getC() {
        return c;
    }

    public void setC(String c) {
        this.c = c;
    }

    public Integer getD() {
        return d;
    }

    public void setD(Integer d) {
        this.d = d;
    }

    public Integer getE() {
        return e;
    }

    public void setE(Integer e) {
        this.e = e;
    }

    public Integer getF() {
        return f;
    }

    public void setF(Integer f) {
        this.f = f;
    }

    public Long getG() {
        return g;
    }

    public void setG(Long g) {
        this.g = g;
    }

    public Integer getH() {
        return h;
    }

    public void setH(Integer h) {
        this.h = h;
    }

    public String getI() {
        return i;
    }

    public void setI(String i) {
        this.i = i;
    }

    public Integer getJ() {
        return j;
    }

    public void setJ(Integer j) {
        this.j = j;
    }

    public Boolean getK() {
        return k;
    }

    public void setK(Boolean k) {
        this.k = k;
    }

    public Integer getL() {
        return l;
    }

    public void setL(Integer l) {
        this.l = l;
    }

    public Boolean getM() {
        return m;
    }

    public void setM(Boolean m) {
        this.m = m;
    }

    public String getN() {
        return n;
    }

    public void setN(String n) {
        this.n = n;
    }
}
