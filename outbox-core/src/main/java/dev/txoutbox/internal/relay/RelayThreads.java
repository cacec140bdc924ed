package dev.txoutbox.internal.relay;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The one place that makes the library's threads, every one named {@code outbox-<owner>-<role>}:
 * {@code outbox-relay-orders-worker-1}, {@code outbox-relay-orders-heartbeat}, {@code
 * outbox-relay-orders-metrics}, {@code outbox-lifecycle-close-1}. Without a user's factory they are
 * daemon threads, so a JVM that exits without closing a relay does not hang on them (an unfinished
 * batch rolls back with its connection). With one ({@code OutboxRelay.Builder#threadFactory}), the
 * factory makes every thread the relay starts, as it makes them: its names, its daemon flag, its
 * kind of thread. Shutdown hooks are never the user's: the JVM starts them, not the relay.
 * Thread-safe.
 */
public final class RelayThreads {

  /** The first part of every thread's name. */
  public static final String PREFIX = "outbox-";

  private final String owner;
  private final @Nullable ThreadFactory factory;

  private RelayThreads(String owner, @Nullable ThreadFactory factory) {
    this.owner = Objects.requireNonNull(owner, "owner");
    this.factory = factory;
  }

  /**
   * The threads of the relay {@code relayName}, {@code outbox-relay-<relayName>-<role>}, made by
   * {@code factory} when given.
   */
  public static RelayThreads forRelay(String relayName, @Nullable ThreadFactory factory) {
    return new RelayThreads("relay-" + relayName, factory);
  }

  /** Threads of {@code owner}, {@code outbox-<owner>-<role>}, always made here. */
  public static RelayThreads of(String owner) {
    return new RelayThreads(owner, null);
  }

  /**
   * Threads of {@code owner}, {@code outbox-<owner>-<role>}, made by {@code factory} when given.
   */
  public static RelayThreads of(String owner, @Nullable ThreadFactory factory) {
    return new RelayThreads(owner, factory);
  }

  /** The name of this owner's thread doing {@code role}: {@code outbox-relay-orders-worker-1}. */
  public String name(String role) {
    return PREFIX + owner + "-" + role;
  }

  /**
   * A new thread running {@code task}, not started: named {@link #name(String) name(role)} and a
   * daemon, or as the user's factory makes it.
   *
   * @throws IllegalStateException if the user's factory makes no thread
   */
  public Thread newThread(String role, Runnable task) {
    if (factory != null) {
      Thread t = factory.newThread(task);
      if (t == null) {
        throw new IllegalStateException(
            "the thread factory must make a thread for " + name(role) + " but returned null");
      }
      return t;
    }
    Thread t = new Thread(task, name(role));
    t.setDaemon(true);
    return t;
  }

  /**
   * A factory for an executor's threads doing {@code role}: the first named {@code
   * outbox-<owner>-<role>}, later ones {@code -2}, {@code -3}, or as the user's factory makes them.
   */
  public ThreadFactory factory(String role) {
    AtomicInteger made = new AtomicInteger();
    return task -> {
      int n = made.incrementAndGet();
      return newThread(n == 1 ? role : role + "-" + n, task);
    };
  }

  /**
   * A shutdown hook running {@code task}, named {@link #name(String) name("shutdown")}; never made
   * by the user's factory.
   */
  public Thread shutdownHook(Runnable task) {
    return new Thread(task, name("shutdown"));
  }
}
