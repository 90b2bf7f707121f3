package io.basalt.broker.auth;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import io.basalt.remoting.protocol.RemotingCommand;

/**
 * Signs the broker's own requests (a slave's metadata sync and protocol question to its master, its NameServer and
 * Controller requests) as RocketMQ's {@code AclClientRPCHook} signs a client's: {@code AccessKey}, then
 * {@code Signature} over every header field, so that a master with access control on lets them in. The credentials
 * are {@code innerClientAuthenticationCredentials} (RocketMQ 5.3's key; ACL 1.0 brokers use it too, where RocketMQ
 * had to whitelist its brokers' addresses). Thread-safe.
 */
public final class RequestSigner implements Consumer<RemotingCommand> {
    private final String accessKey;
    private final String secretKey;

    public RequestSigner(String accessKey, String secretKey) {
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    @Override
    public void accept(RemotingCommand request) {
        Map<String, String> fields = new TreeMap<>();
        if (request.header() != null) {
            request.header().encode(fields::put);
        }
        if (request.extFields() != null) {
            fields.putAll(request.extFields());
        }
        fields.remove(RequestSignature.SIGNATURE);
        fields.put(RequestSignature.ACCESS_KEY, accessKey);
        request.putExtField(RequestSignature.ACCESS_KEY, accessKey);
        request.putExtField(RequestSignature.SIGNATURE, RequestSignature.sign(secretKey, fields, request.body()));
    }

    @Override
    public String toString() {
        return "RequestSigner[" + accessKey + "]";
    }
}
