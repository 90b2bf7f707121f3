package io.basalt.ha;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Mutual authentication of Basalt brokers on the HA port ({@code haAuthSecret}, a secret the brokers of a group
 * share). RocketMQ's HA port takes anyone who can connect, and its protocols have no room for a proof, so the proof
 * comes before them, and only between Basalt brokers that are both configured with the secret:
 *
 * <pre>
 * slave → master   "BHA1" | timestampMs (8) | nonce (16) | HMAC-SHA256(secret, "BHA1" | timestampMs | nonce)   60 bytes
 * master → slave   "BHA1" | HMAC-SHA256(secret, nonce | "master")                                             36 bytes
 * </pre>
 *
 * then the replication protocol as usual. The master ({@link Gate}, the first handler of a connection) refuses a
 * connection whose first bytes are not a proof of the secret (a RocketMQ slave, which cannot make one, included: say
 * so in the log), a timestamp more than {@link #MAX_SKEW_MS} away from its clock, and a nonce it has seen (a replayed
 * proof). The slave ({@link Proof}, the first handler of its connection) sends its proof first and replicates only
 * from a master that answers with the master's proof of the same secret. Both compare in constant time; the secret is
 * never written anywhere. Stateless apart from the master's replay window.
 */
public final class HAAuth {
    private static final Logger LOG = LoggerFactory.getLogger(HAAuth.class);
    /** "BHA1": as the first int of a classic offset report it would be an offset above 2^62; never a real one. */
    public static final int MAGIC = 0x42484131;
    static final int NONCE_LENGTH = 16;
    static final int MAC_LENGTH = 32;
    static final int SLAVE_PROOF_LENGTH = 4 + 8 + NONCE_LENGTH + MAC_LENGTH;
    static final int MASTER_PROOF_LENGTH = 4 + MAC_LENGTH;
    /** How far a slave's clock may be from the master's. */
    static final long MAX_SKEW_MS = 120_000;
    private static final int REPLAY_WINDOW = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] secret;
    private final LongSupplier clock;
    /** Nonces seen within the skew window (the master's replay check); guarded by itself. */
    private final Map<String, Long> seen = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REPLAY_WINDOW;
        }
    };

    public HAAuth(String secret, LongSupplier clock) {
        this.secret = secret.getBytes(StandardCharsets.UTF_8);
        this.clock = clock;
    }

    /** The slave's first bytes. */
    byte[] slaveProof(byte[] nonce, long timestampMs) {
        byte[] out = new byte[SLAVE_PROOF_LENGTH];
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(out);
        b.putInt(MAGIC).putLong(timestampMs).put(nonce);
        b.put(mac(java.util.Arrays.copyOf(out, 4 + 8 + NONCE_LENGTH)));
        return out;
    }

    /** The master's answer to a slave's nonce. */
    byte[] masterProof(byte[] nonce) {
        byte[] content = new byte[NONCE_LENGTH + 6];
        System.arraycopy(nonce, 0, content, 0, NONCE_LENGTH);
        System.arraycopy("master".getBytes(StandardCharsets.US_ASCII), 0, content, NONCE_LENGTH, 6);
        byte[] out = new byte[MASTER_PROOF_LENGTH];
        java.nio.ByteBuffer.wrap(out).putInt(MAGIC).put(mac(content));
        return out;
    }

    /**
     * Why a slave's proof is refused, or null when it proves the secret (and its nonce is now spent).
     */
    String checkSlaveProof(byte[] proof) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(proof);
        if (b.getInt() != MAGIC) {
            return "no authentication proof (a RocketMQ slave, or a Basalt slave without haAuthSecret)";
        }
        long timestamp = b.getLong();
        byte[] nonce = new byte[NONCE_LENGTH];
        b.get(nonce);
        byte[] claimed = new byte[MAC_LENGTH];
        b.get(claimed);
        if (!MessageDigest.isEqual(mac(java.util.Arrays.copyOf(proof, 4 + 8 + NONCE_LENGTH)), claimed)) {
            return "the proof is not of this master's haAuthSecret";
        }
        long now = clock.getAsLong();
        if (Math.abs(now - timestamp) > MAX_SKEW_MS) {
            return "the proof is " + Math.abs(now - timestamp) + " ms away from this master's clock (at most "
                + MAX_SKEW_MS + ")";
        }
        String key = java.util.HexFormat.of().formatHex(nonce);
        synchronized (seen) {
            seen.values().removeIf(at -> now - at > 2 * MAX_SKEW_MS);
            if (seen.putIfAbsent(key, now) != null) {
                return "a replayed proof (its nonce was seen already)";
            }
        }
        return null;
    }

    private byte[] mac(byte[] content) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(content);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 unavailable: " + e, e);
        }
    }

    static byte[] newNonce() {
        byte[] nonce = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** The master's first handler: a slave's proof, or the connection is closed. One per connection. */
    public Gate gate() {
        return new Gate();
    }

    /** The slave's first handler: its proof out, the master's proof in. One per connection. */
    public Proof proof() {
        return new Proof();
    }

    public final class Gate extends ByteToMessageDecoder {
        private boolean refused;

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (refused) {
                in.skipBytes(in.readableBytes());
                return;
            }
            if (in.readableBytes() >= 4 && in.getInt(in.readerIndex()) != MAGIC) {
                refuse(ctx, in, "no authentication proof (a RocketMQ slave, or a Basalt slave without haAuthSecret):"
                    + " haAuthSecret is set on this master, so only Basalt slaves with the same secret may follow it");
                return;
            }
            if (in.readableBytes() < SLAVE_PROOF_LENGTH) {
                return;
            }
            byte[] proof = new byte[SLAVE_PROOF_LENGTH];
            in.readBytes(proof);
            String why = checkSlaveProof(proof);
            if (why != null) {
                refuse(ctx, in, why);
                return;
            }
            byte[] nonce = java.util.Arrays.copyOfRange(proof, 12, 12 + NONCE_LENGTH);
            ctx.writeAndFlush(ctx.alloc().buffer(MASTER_PROOF_LENGTH).writeBytes(masterProof(nonce)));
            // the replication protocol's bytes that came with the proof go on to the protocol dispatcher
            ctx.pipeline().remove(this);
        }

        private void refuse(ChannelHandlerContext ctx, ByteBuf in, String why) {
            refused = true;
            in.skipBytes(in.readableBytes());
            LOG.error("HA connection {} refused: {}", ctx.channel().remoteAddress(), why);
            ctx.close();
        }
    }

    public final class Proof extends ByteToMessageDecoder {
        private byte[] nonce;
        private boolean refused;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            nonce = newNonce();
            ctx.writeAndFlush(ctx.alloc().buffer(SLAVE_PROOF_LENGTH).writeBytes(slaveProof(nonce, clock.getAsLong())));
            super.channelActive(ctx);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (refused) {
                in.skipBytes(in.readableBytes());
                return;
            }
            if (in.readableBytes() < MASTER_PROOF_LENGTH) {
                return;
            }
            byte[] answer = new byte[MASTER_PROOF_LENGTH];
            in.readBytes(answer);
            if (!MessageDigest.isEqual(masterProof(nonce), answer)) {
                refused = true;
                in.skipBytes(in.readableBytes());
                LOG.error("HA connection to {} dropped: the master did not prove it knows haAuthSecret (another secret,"
                    + " or a master that does not authenticate)", ctx.channel().remoteAddress());
                ctx.close();
                return;
            }
            ctx.pipeline().remove(this);
        }
    }
}
