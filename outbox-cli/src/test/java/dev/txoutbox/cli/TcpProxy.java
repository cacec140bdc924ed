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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder on 127.0.0.1 to a local server, so a test can cut the database away from a
 * running relay ({@link #stop()}: every connection closed, new ones refused) and bring it back
 * ({@link #start()}, same port).
 */
final class TcpProxy implements AutoCloseable {

  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile ServerSocket server;
  private int port;

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

  @Override
  public void close() throws IOException {
    stop();
  }

  private void acceptLoop(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket client = s.accept();
        accepted.incrementAndGet();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        // closed by stop(), or the target refused: the client sees its connection end
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // one side closed
              } finally {
                try {
                  from.close();
                  to.close();
                } catch (IOException ignored) {
                  // already closed
                }
              }
            },
            "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }
}
