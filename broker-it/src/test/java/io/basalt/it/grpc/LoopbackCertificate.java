package io.basalt.it.grpc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 (and localhost) as PEM files, made with the JDK's keytool: for SDKs that,
 * unlike the Java one, verify the server's certificate and host name (the Node.js SDK's grpc-js trusts the roots
 * file {@code GRPC_DEFAULT_SSL_ROOTS_FILE_PATH} names, else node's built-in CAs).
 */
record LoopbackCertificate(Path certificate, Path privateKey) {
    private static final String PASSWORD = "basalt-test";

    static LoopbackCertificate create(Path dir) throws IOException, InterruptedException, GeneralSecurityException {
        Files.createDirectories(dir);
        Path store = dir.resolve("loopback.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(List.of(keytool, "-genkeypair", "-alias", "loopback", "-keyalg", "RSA",
            "-keysize", "2048", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
            "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD))
            .redirectErrorStream(true).redirectOutput(dir.resolve("keytool.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool failed: " + Files.readString(dir.resolve("keytool.log")));
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        Path cert = dir.resolve("loopback.crt");
        Path key = dir.resolve("loopback.key");
        Files.writeString(cert, pem("CERTIFICATE", ks.getCertificate("loopback").getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", ks.getKey("loopback", PASSWORD.toCharArray()).getEncoded()));
        return new LoopbackCertificate(cert, key);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
            + "\n-----END " + type + "-----\n";
    }
}
