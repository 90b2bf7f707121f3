package io.basalt.common.config;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the configuration's defaults and path resolution depend on outside the file: the home and
 * working directories, the host's name and address, the processor count, and {@code ${name}}
 * variables. {@link #system()} reads them from this JVM; tests pass fixed ones.
 *
 * @param userHome     {@code ${user.home}}, the root of RocketMQ's default store path
 * @param workingDir   what relative paths are resolved against (as RocketMQ, whose paths are plain files)
 * @param hostName     default {@code brokerName}; asked for only when the file does not set it
 * @param localAddress default {@code brokerIP1}; asked for only when the file does not set it
 * @param processors   sizes the default thread pools as RocketMQ does
 * @param variables    {@code ${name}} lookup: a JVM system property, else an environment variable
 */
public record ConfigEnvironment(
    Path userHome,
    Path workingDir,
    Supplier<String> hostName,
    Supplier<String> localAddress,
    int processors,
    Function<String, Optional<String>> variables) {

    public static ConfigEnvironment system() {
        return new ConfigEnvironment(
            Path.of(System.getProperty("user.home")),
            Path.of("").toAbsolutePath(),
            ConfigEnvironment::localHostName,
            ConfigEnvironment::localIpv4Address,
            Runtime.getRuntime().availableProcessors(),
            name -> Optional.ofNullable(System.getProperty(name)).or(() -> Optional.ofNullable(System.getenv(name))));
    }

    /** {@code ${name}}: {@code user.home}, {@code user.dir}, else a JVM system property or environment variable. */
    public Optional<String> variable(String name) {
        if (name.equals("user.home")) {
            return Optional.of(userHome.toString());
        }
        if (name.equals("user.dir")) {
            return Optional.of(workingDir.toString());
        }
        return variables.apply(name);
    }

    /** RocketMQ names a broker after its host when {@code brokerName} is not set. */
    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "DEFAULT_BROKER";
        }
    }

    /**
     * The address other machines most likely reach this host at: the first IPv4 address of an up,
     * non-loopback interface, preferring one outside 192.168/16 as RocketMQ's NetworkUtil does.
     */
    private static String localIpv4Address() {
        List<String> candidates = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback() || nic.isVirtual()) {
                    continue;
                }
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                        candidates.add(address.getHostAddress());
                    }
                }
            }
        } catch (SocketException e) {
            return "127.0.0.1";
        }
        return candidates.stream().filter(ip -> !ip.startsWith("192.168."))
            .findFirst()
            .orElse(candidates.isEmpty() ? "127.0.0.1" : candidates.get(0));
    }
}
