package dev.txoutbox.rabbit;

import com.rabbitmq.client.ConnectionFactory;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on the loopback interface in front of the test broker, so that a test can take the
 * broker away from a publisher and give it back:
 *
 * <ul>
 *   <li>{@link #refuse()} cuts every connection through the proxy and closes its port, so that
 *       connecting is refused; {@link #accept()} opens the same port again;
 *   <li>{@link #block(String)} and {@link #unblock()} tell every connected client that the broker
 *       blocks publishing, as RabbitMQ does on a memory or disk alarm ({@code connection.blocked}
 *       and {@code connection.unblocked}), without touching the broker's configuration;
 *   <li>{@link #stall()} holds back everything the broker sends, as a network dropping packets
 *       would, until {@link #resume()}.
 * </ul>
 *
 * The broker-to-client direction is copied frame by frame (AMQP 0-9-1 framing), so that injected
 * frames land between two frames of the broker. Thread-safe.
 */
final class AmqpProxy implements AutoCloseable {

  private static final int FRAME_METHOD = 1;
  private static final int FRAME_END = 0xCE;
  private static final int FRAME_HEADER_BYTES = 7;
  private static final int CONNECTION_CLASS = 10;
  private static final int CONNECTION_BLOCKED = 60;
  private static final int CONNECTION_UNBLOCKED = 61;

  private final InetAddress loopback = InetAddress.getLoopbackAddress();
  private final int brokerPort;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicInteger accepted = new AtomicInteger();
  private final Object stallLock = new Object();
  private boolean stalled; // guarded by stallLock
  private ServerSocket listener; // guarded by this
  private int port;

  private AmqpProxy(int brokerPort) {
    this.brokerPort = brokerPort;
  }

  /** A proxy to the test broker, accepting connections on a free port. */
  static AmqpProxy toTestBroker() throws IOException {
    AmqpProxy proxy = new AmqpProxy(RabbitTestBroker.factory().getPort());
    proxy.accept();
    return proxy;
  }

  /** A factory for the test broker that connects through this proxy. */
  ConnectionFactory factory() {
    ConnectionFactory factory = RabbitTestBroker.factory();
    factory.setHost(loopback.getHostAddress());
    factory.setPort(port);
    return factory;
  }

  /** How many client connections the proxy has forwarded so far. */
  int connectionsAccepted() {
    return accepted.get();
  }

  /** Listens again, on the same port as before; does nothing if listening. */
  synchronized void accept() throws IOException {
    if (listener != null) {
      return;
    }
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(new InetSocketAddress(loopback, port));
    port = socket.getLocalPort();
    listener = socket;
    daemon("amqp-proxy-accept-" + port, () -> acceptLoop(socket));
  }

  /**
   * Cuts every forwarded connection and closes the port: connecting is refused until {@link
   * #accept()}.
   */
  synchronized void refuse() {
    if (listener != null) {
      closeQuietly(listener);
      listener = null;
    }
    links.forEach(Link::close);
  }

  /** Sends {@code connection.blocked} with {@code reason} to every connected client. */
  void block(String reason) {
    byte[] text = reason.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream arguments = new ByteArrayOutputStream();
    arguments.write(text.length);
    arguments.writeBytes(text);
    injectMethod(CONNECTION_BLOCKED, arguments.toByteArray());
  }

  /** Sends {@code connection.unblocked} to every connected client. */
  void unblock() {
    injectMethod(CONNECTION_UNBLOCKED, new byte[0]);
  }

  /** Holds back every frame the broker sends from now on, until {@link #resume()}. */
  void stall() {
    synchronized (stallLock) {
      stalled = true;
    }
  }

  /** Passes on what {@link #stall()} held back, and everything after it. */
  void resume() {
    synchronized (stallLock) {
      stalled = false;
      stallLock.notifyAll();
    }
  }

  @Override
  public void close() {
    resume();
    refuse();
  }

  private void awaitNotStalled() throws InterruptedException {
    synchronized (stallLock) {
      while (stalled) {
        stallLock.wait();
      }
    }
  }

  private void injectMethod(int method, byte[] arguments) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream frame = new DataOutputStream(bytes)) {
      frame.writeByte(FRAME_METHOD);
      frame.writeShort(0); // channel 0: the connection itself
      frame.writeInt(4 + arguments.length);
      frame.writeShort(CONNECTION_CLASS);
      frame.writeShort(method);
      frame.write(arguments);
      frame.writeByte(FRAME_END);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    links.forEach(link -> link.toClient(bytes.toByteArray()));
  }

  private void acceptLoop(ServerSocket socket) {
    while (!socket.isClosed()) {
      Socket client;
      try {
        client = socket.accept();
      } catch (IOException e) {
        return; // refuse() closed the port
      }
      try {
        Link link = new Link(client, new Socket(loopback, brokerPort));
        if (register(socket, link)) {
          accepted.incrementAndGet();
          daemon("amqp-proxy-up-" + port, link::copyToBroker);
          daemon("amqp-proxy-down-" + port, link::copyToClient);
        }
      } catch (IOException e) {
        closeQuietly(client); // the broker refused: so does the proxy
      }
    }
  }

  /** Keeps {@code link} unless the port it came through was closed meanwhile. */
  private synchronized boolean register(ServerSocket through, Link link) {
    if (listener != through) {
      link.close();
      return false;
    }
    links.add(link);
    return true;
  }

  private static void daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception ignored) {
      // already closed
    }
  }

  /** One client connection and its connection to the broker. */
  private final class Link {
    private final Socket client;
    private final Socket broker;
    private final Object toClientLock = new Object();

    Link(Socket client, Socket broker) {
      this.client = client;
      this.broker = broker;
    }

    void copyToBroker() {
      try (InputStream in = client.getInputStream();
          OutputStream out = broker.getOutputStream()) {
        in.transferTo(out);
      } catch (IOException e) {
        // one side closed
      } finally {
        close();
      }
    }

    /** Copies whole frames, so that {@link #toClient} writes between two of them. */
    void copyToClient() {
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(broker.getInputStream()))) {
        byte[] header = new byte[FRAME_HEADER_BYTES];
        while (true) {
          in.readFully(header);
          byte[] rest = new byte[ByteBuffer.wrap(header, 3, 4).getInt() + 1];
          in.readFully(rest);
          awaitNotStalled();
          synchronized (toClientLock) {
            OutputStream out = client.getOutputStream();
            out.write(header);
            out.write(rest);
          }
        }
      } catch (EOFException e) {
        // the broker closed the connection
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (IOException e) {
        // one side closed
      } finally {
        close();
      }
    }

    void toClient(byte[] frame) {
      synchronized (toClientLock) {
        try {
          client.getOutputStream().write(frame);
        } catch (IOException e) {
          close();
        }
      }
    }

    void close() {
      links.remove(this);
      closeQuietly(client);
      closeQuietly(broker);
    }
  }
}
