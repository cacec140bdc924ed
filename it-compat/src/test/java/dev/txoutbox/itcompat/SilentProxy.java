package dev.txoutbox.itcompat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder on 127.0.0.1 to a local server that can go silent, as a primary behind a dead
 * network path does: after {@link #silence()} it still accepts connections and holds every socket
 * open, but forwards nothing, answers nothing and closes nothing on the client's side, so a client
 * waiting for an answer waits until its own timeout. The server's side of each connection that was
 * open is closed at once (the old primary is gone; its transactions roll back and free their row
 * locks). After {@link #forward()} new connections reach the server again; those held while silent
 * stay silent until {@link #close()}. Thread-safe.
 */
final class SilentProxy implements AutoCloseable {

  private final int targetPort;
  private final ServerSocket server;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private final AtomicInteger held = new AtomicInteger();
  private volatile boolean silent;

  /** One client connection, with its server side while forwarding. */
  private static final class Link {
    final Socket client;
    volatile Socket upstream;
    volatile boolean dead;

    Link(Socket client) {
      this.client = client;
    }
  }

  private SilentProxy(int targetPort, ServerSocket server) {
    this.targetPort = targetPort;
    this.server = server;
  }

  /** Starts forwarding from a free loopback port to 127.0.0.1:{@code targetPort}. */
  static SilentProxy start(int targetPort) throws IOException {
    ServerSocket s = new ServerSocket();
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    SilentProxy proxy = new SilentProxy(targetPort, s);
    Thread accept = new Thread(proxy::acceptLoop, "silent-proxy-accept");
    accept.setDaemon(true);
    accept.start();
    return proxy;
  }

  /** The port clients connect to. */
  int port() {
    return server.getLocalPort();
  }

  /** How many client connections were accepted while silent (held, never forwarded). */
  int held() {
    return held.get();
  }

  /** Stops forwarding: every open connection goes silent for good, and so does every new one. */
  void silence() {
    silent = true;
    for (Link link : links) {
      link.dead = true;
      closeQuietly(link.upstream);
    }
  }

  /** New connections reach the server again. */
  void forward() {
    silent = false;
  }

  /** Closes the listener and every connection, held ones included. */
  @Override
  public void close() throws IOException {
    server.close();
    for (Link link : links) {
      closeQuietly(link.client);
      closeQuietly(link.upstream);
    }
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Link link = new Link(client);
      links.add(link);
      if (silent) {
        held.incrementAndGet();
        link.dead = true;
        pump(client, null, link);
        continue;
      }
      try {
        link.upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
      } catch (IOException e) {
        closeQuietly(client);
        continue;
      }
      pump(client, link.upstream, link);
      pump(link.upstream, client, link);
    }
  }

  /**
   * Copies {@code from} to {@code to} until the link dies; then reads and drops, so the client's
   * writes never block, until {@code from} is closed.
   */
  private void pump(Socket from, Socket to, Link link) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try {
                InputStream in = from.getInputStream();
                OutputStream out = to == null ? null : to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (!link.dead && out != null) {
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                }
              } catch (IOException e) {
                // one side closed
              }
              if (!link.dead) {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "silent-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    if (s == null) {
      return;
    }
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
