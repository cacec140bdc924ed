package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.Publisher;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The relay refers to {@link PublishTracer} whether or not OpenTelemetry is on the class path:
 * {@link PublishTracer#none()} must load and run with only core and the SPI.
 */
class PublishTracerWithoutOpenTelemetryTest {

  @Test
  void noneLoadsAndPublishesTheBatchUnchangedWithoutOpenTelemetry() throws Exception {
    URL core = PublishTracer.class.getProtectionDomain().getCodeSource().getLocation();
    URL spi = Publisher.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {core, spi}, ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> loader.loadClass("io.opentelemetry.api.OpenTelemetry"))
          .isInstanceOf(ClassNotFoundException.class);
      Class<?> tracerType = loader.loadClass(PublishTracer.class.getName());
      Class<?> publisherType = loader.loadClass(Publisher.class.getName());
      Object publisher =
          Proxy.newProxyInstance(
              loader, new Class<?>[] {publisherType}, (proxy, method, args) -> null);
      List<Object> batch = List.of();

      Object none = tracerType.getMethod("none").invoke(null);
      Method begin = tracerType.getMethod("begin", String.class, publisherType, List.class);
      Object attempt = begin.invoke(none, "relay", publisher, batch);
      Class<?> attemptType = loader.loadClass(PublishTracer.Attempt.class.getName());
      Object messages = attemptType.getMethod("messages").invoke(attempt);
      attemptType.getMethod("end", List.class).invoke(attempt, List.of());

      assertThat(messages).isSameAs(batch);
    }
  }
}
