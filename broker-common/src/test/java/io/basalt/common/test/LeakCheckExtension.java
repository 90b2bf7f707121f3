package io.basalt.common.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Fails a test that leaves a mapped file, an open file descriptor (file, socket, pipe, event fd) or
 * a thread behind: what the process holds after each test (and after each test class, for what
 * {@code @BeforeAll} opened) must be what it held before. Closing can finish asynchronously (an
 * event loop's graceful shutdown, the last reader releasing a mapping), so the check waits up to
 * {@link #SETTLE} for the leftovers to go.
 *
 * <p>Modules register it for all their tests by JUnit's extension auto-detection: the test-jar
 * lists it in {@code META-INF/services/org.junit.jupiter.api.extension.Extension}, and a module's
 * {@code junit-platform.properties} sets {@code junit.jupiter.extensions.autodetection.enabled=true}.
 * A class can also name it with {@code @ExtendWith}.
 *
 * <p>Threads the JVM, the test harness or a library start once and keep for the process lifetime
 * are allowed ({@link #LIFETIME_THREADS}), and so are those a module's {@link LifetimeThreads} start
 * before the first test; a pool a test started is not, whoever owns it. A test class that uses a
 * library which cannot stop a thread of its own names it with {@link AllowThreads}.
 */
public final class LeakCheckExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    /** How long leftovers may take to go after a test. */
    static final Duration SETTLE = Duration.ofSeconds(10);

    /**
     * Prefixes of threads that live as long as the JVM once started: the JVM's own, JUnit's and
     * awaitility's, the common fork-join pool, and Netty's global executors (GlobalEventExecutor
     * stays up for a second after its last task, ObjectCleaner for the process lifetime).
     */
    static final Set<String> LIFETIME_THREADS = Set.of("process reaper", "JNA Cleaner", "Common-Cleaner",
        "Attach Listener", "Signal Dispatcher", "Notification Thread", "Finalizer", "Reference Handler",
        "surefire-forkedjvm", "junit-", "awaitility", "ForkJoinPool", "globalEventExecutor", "ObjectCleanerThread",
        "threadDeathWatcher", "Keep-Alive-Timer", "logback-");

    /**
     * Threads (by name prefix) a test class may leave behind, each a thread that code outside Basalt
     * starts and gives no way to stop; {@code because} says whose and why.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface AllowThreads {
        String[] value();

        String because();
    }

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LeakCheckExtension.class);

    private static volatile boolean lifetimeThreadsStarted;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        startLifetimeThreads();
        record(context);
    }

    private static synchronized void startLifetimeThreads() throws Exception {
        if (!lifetimeThreadsStarted) {
            lifetimeThreadsStarted = true;
            for (LifetimeThreads threads : ServiceLoader.load(LifetimeThreads.class)) {
                threads.start();
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check(context, "test class " + context.getDisplayName());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        record(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(context, "test " + context.getDisplayName());
    }

    private static void record(ExtensionContext context) {
        context.getStore(NAMESPACE).put(Snapshot.class, Snapshot.take());
    }

    private static void check(ExtensionContext context, String what) {
        Snapshot before = context.getStore(NAMESPACE).get(Snapshot.class, Snapshot.class);
        if (before == null) {
            return;
        }
        List<String> allowed = context.getTestClass()
            .flatMap(c -> AnnotationSupport.findAnnotation(c, AllowThreads.class))
            .map(a -> List.of(a.value())).orElse(List.of());
        await().atMost(SETTLE).pollInterval(Duration.ofMillis(50)).untilAsserted(
            () -> assertEquals("", before.leftBehind(Snapshot.take(), allowed), "left behind by " + what));
    }

    /** What the process holds at one moment. */
    record Snapshot(Set<String> mappedFiles, Set<String> openFiles, Set<Thread> threads) {
        private static final String EVENTPOLL = "anon_inode:[eventpoll]";

        static Snapshot take() {
            return new Snapshot(ProcessResources.mappedFiles(), ProcessResources.openFiles(),
                Thread.getAllStackTraces().keySet());
        }

        /** What {@code now} holds that this snapshot did not, as one line per kind; empty if nothing. */
        String leftBehind(Snapshot now) {
            return leftBehind(now, List.of());
        }

        /** As {@link #leftBehind(Snapshot)}, also allowing threads whose names start with one of {@code allowedThreads}. */
        String leftBehind(Snapshot now, List<String> allowedThreads) {
            StringBuilder out = new StringBuilder();
            append(out, "mapped files", difference(now.mappedFiles, mappedFiles));
            Set<String> openedFiles = difference(now.openFiles, openFiles);
            append(out, "open files", openedFiles.stream().map(ProcessResources::describe)
                .collect(Collectors.toCollection(TreeSet::new)));
            if (openedFiles.contains(EVENTPOLL)) {
                // which selector it is: what each epoll watches (sockets named by their ports)
                append(out, "epoll instances", new TreeSet<>(ProcessResources.epollInstances()));
            }
            append(out, "threads", now.threads.stream().filter(t -> t.isAlive() && !threads.contains(t))
                .filter(t -> !isLifetimeThread(t.getName()) && allowedThreads.stream().noneMatch(t.getName()::startsWith))
                .map(Snapshot::describe).collect(Collectors.toCollection(TreeSet::new)));
            return out.toString();
        }

        /**
         * The thread's name and the outermost frame of its stack outside the JDK (usually the code
         * that runs it), or else outside {@code Thread} (a JDK thread).
         */
        private static String describe(Thread t) {
            StackTraceElement[] stack = t.getStackTrace();
            for (int i = stack.length - 1; i >= 0; i--) {
                String className = stack[i].getClassName();
                if (!className.startsWith("java.") && !className.startsWith("jdk.") && !className.startsWith("sun.")
                    && !className.contains("$$Lambda")) {
                    return t.getName() + " in " + className + "." + stack[i].getMethodName();
                }
            }
            for (int i = stack.length - 1; i >= 0; i--) {
                if (!stack[i].getClassName().equals(Thread.class.getName())) {
                    return t.getName() + " in " + stack[i].getClassName() + "." + stack[i].getMethodName();
                }
            }
            return t.getName();
        }

        private static Set<String> difference(Set<String> now, Set<String> before) {
            Set<String> d = new TreeSet<>(now);
            d.removeAll(before);
            return d;
        }

        private static void append(StringBuilder out, String kind, Set<String> leaked) {
            if (!leaked.isEmpty()) {
                out.append(kind).append(": ").append(leaked).append('\n');
            }
        }
    }

    static boolean isLifetimeThread(String name) {
        return LIFETIME_THREADS.stream().anyMatch(name::startsWith);
    }
}
