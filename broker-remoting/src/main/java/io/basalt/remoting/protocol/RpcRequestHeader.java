package io.basalt.remoting.protocol;

import java.util.Map;

/**
 * The fields RocketMQ 5 adds to topic-addressed request headers: namespace ({@code ns}), namespaced
 * ({@code nsd}), broker name ({@code bname}), one-way ({@code oway}) and logical ({@code lo}).
 */
public abstract class RpcRequestHeader implements CommandHeader {
    private String namespace;
    private Boolean namespaced;
    private String brokerName;
    private Boolean oneway;
    private Boolean logical;

    void encodeRpcFields(FieldWriter out) {
        HeaderFields.put(out, "lo", logical);
        HeaderFields.put(out, "ns", namespace);
        HeaderFields.put(out, "nsd", namespaced);
        HeaderFields.put(out, "bname", brokerName);
        HeaderFields.put(out, "oway", oneway);
    }

    void decodeRpcFields(Map<String, String> fields) {
        logical = HeaderFields.bool(fields, "lo");
        namespace = HeaderFields.string(fields, "ns");
        namespaced = HeaderFields.bool(fields, "nsd");
        brokerName = HeaderFields.string(fields, "bname");
        oneway = HeaderFields.bool(fields, "oway");
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Boolean getNamespaced() {
        return namespaced;
    }

    public void setNamespaced(Boolean namespaced) {
        this.namespaced = namespaced;
    }

    public String getBrokerName() {
        return brokerName;
    }

    public void setBrokerName(String brokerName) {
        this.brokerName = brokerName;
    }

    public Boolean getOneway() {
        return oneway;
    }

    public void setOneway(Boolean oneway) {
        this.oneway = oneway;
    }

    public Boolean getLogical() {
        return logical;
    }

    public void setLogical(Boolean logical) {
        this.logical = logical;
    }
}
