package dev.txoutbox.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP forwarder on 127.0.0.1 to a local server, so a test can cut the database away from a
 * running relay ({@link #stop()}: every connection closed, new ones refused) and bring it back
 * ({@link #start()}, same port), or make it go silent as a primary whose packets are dropped
 * ({@link #silence()}: every connection stays open and nothing more passes either way, for good)
 * until new connections pass again ({@link #forward()}).
 */
final class TcpProxy implements AutoCloseable {

  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicLong dropped = new AtomicLong();
  private volatile ServerSocket server;
  private int port;

  /** While true, connections accepted are dead from the start. */
  private volatile boolean silent;

  /** Each forwarded connection's flag: once dead, it drops every byte for good. */
  private final List<AtomicBoolean> connections = new CopyOnWriteArrayList<>();

  TcpProxy(int targetPort) {
    this.targetPort = targetPort;
  }

  /** Listens (on the same port as before, after a stop). */
  synchronized TcpProxy start() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    port = s.getLocalPort();
    server = s;
    Thread accept = new Thread(() -> acceptLoop(s), "tcp-proxy-accept");
    accept.setDaemon(true);
    accept.start();
    return this;
  }

  int port() {
    return port;
  }

  /** How many bytes a dead connection has dropped so far, in either direction. */
  long droppedBytes() {
    return dropped.get();
  }

  /** How many connections clients have opened through the proxy so far. */
  int accepted() {
    return accepted.get();
  }

  /** Closes the listener and every forwarded connection. */
  synchronized void stop() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
    sockets.clear();
  }

  /**
   * Drops every byte from now on, in both directions, keeping every socket open: the connections
   * open now never carry a byte again, and those accepted until {@link #forward()} never do.
   */
  void silence() {
    synchronized (connections) {
      silent = true;
      connections.forEach(dead -> dead.set(true));
    }
  }

  /** New connections pass again; those silenced stay dead. */
  void forward() {
    silent = false;
  }

  @Override
  public void close() throws IOException {
    stop();
  }

  private void acceptLoop(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket client = s.accept();
        accepted.incrementAndGet();
        sockets.add(client);
        AtomicBoolean dead = new AtomicBoolean();
        synchronized (connections) {
          dead.set(silent);
          connections.add(dead);
        }
        if (dead.get()) {
          // A host that no longer answers: the client's bytes go nowhere.
          drain(client);
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(upstream);
        pump(client, upstream, dead, client);
        pump(upstream, client, dead, client);
      } catch (IOException e) {
        // closed by stop(), or the target refused: the client sees its connection end
      }
    }
  }

  /**
   * Copies {@code from} to {@code to} until either closes, then closes both; once the connection is
   * {@code dead} ({@link #silence()}) its bytes are dropped, and the end of the server's side no
   * longer closes the {@code client}'s, which stays open and silent.
   */
  private void pump(Socket from, Socket to, AtomicBoolean dead, Socket client) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (dead.get()) {
                    dropped.addAndGet(n);
                  } else {
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                }
              } catch (IOException e) {
                // one side closed
              } finally {
                closeQuietly(from);
                if (!(dead.get() && to == client)) {
                  closeQuietly(to);
                }
              }
            },
            "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Reads and drops whatever {@code client} sends, until it closes. */
  private void drain(Socket client) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try {
                InputStream in = client.getInputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  dropped.addAndGet(n);
                }
              } catch (IOException e) {
                // closed
              } finally {
                closeQuietly(client);
              }
            },
            "tcp-proxy-drain");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
