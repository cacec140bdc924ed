package dev.txoutbox.console;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A console served on its own JDK HTTP server, from {@link OutboxConsole#start()}. {@link #close()}
 * stops it; it is idempotent. Thread-safe.
 */
public final class ConsoleServer implements AutoCloseable {

  /** Threads answering requests: 4. */
  static final int THREADS = 4;

  private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final OutboxConsole console;

  private ConsoleServer(HttpServer server, ExecutorService executor, OutboxConsole console) {
    this.server = server;
    this.executor = executor;
    this.console = console;
  }

  static ConsoleServer start(OutboxConsole console, String bindAddress, int port) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(bindAddress, port), 32);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve the console on " + bindAddress + ":" + port + " (bindAddress, port): " + e,
          e);
    }
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "txoutbox-console-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", console.httpHandler());
    server.start();
    ConsoleServer started = new ConsoleServer(server, executor, console);
    log.info("serving the outbox console on {}: {}", started.uri(), console.describe());
    return started;
  }

  /** The port listened on (the one taken when 0 was asked for). */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The console's address, such as {@code http://127.0.0.1:8089/}. */
  public URI uri() {
    InetSocketAddress address = server.getAddress();
    String host = address.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + address.getPort() + "/");
  }

  /**
   * Stops serving (open exchanges get no more than a second to finish) and the console's chart
   * sampling.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      server.stop(1);
      executor.shutdownNow();
      console.close();
      log.info("stopped the outbox console");
    }
  }
}
