package dev.txoutbox.sqs;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlResponse;

/**
 * Turns a route (a queue URL or a queue name) into a queue URL. Names are looked up with {@code
 * GetQueueUrl} once and cached for the publisher's life; a failed lookup is not cached, so the next
 * batch asks again. Thread-safe.
 */
final class QueueResolver {

  private static final Logger log = LoggerFactory.getLogger(QueueResolver.class);

  private final SqsAsyncClient client;
  private final ConcurrentMap<String, CompletableFuture<String>> urls = new ConcurrentHashMap<>();

  QueueResolver(SqsAsyncClient client) {
    this.client = client;
  }

  /**
   * {@code queue}, the route of {@code aggregateType}, if it can name a queue.
   *
   * @throws NullPointerException if {@code queue} is null
   * @throws IllegalArgumentException if {@code queue} is blank
   */
  static String requireQueue(String aggregateType, String queue) {
    Objects.requireNonNull(queue, "queue");
    if (queue.isBlank()) {
      throw new IllegalArgumentException(
          "queue of aggregate type '"
              + aggregateType
              + "' must not be blank but was '"
              + queue
              + "'");
    }
    return queue;
  }

  /** Whether {@code route} is a queue URL rather than a queue name. */
  static boolean isUrl(String route) {
    String lower = route.toLowerCase(Locale.ROOT);
    return lower.startsWith("https://") || lower.startsWith("http://");
  }

  /** Whether {@code route} names a FIFO queue: SQS requires FIFO queue names to end in .fifo. */
  static boolean isFifo(String route) {
    return route.endsWith(".fifo");
  }

  /**
   * The queue name of {@code route}: the route itself, or the last path segment of a queue URL.
   * Never throws.
   */
  static String queueName(String route) {
    if (!isUrl(route)) {
      return route;
    }
    String path = route.endsWith("/") ? route.substring(0, route.length() - 1) : route;
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * The URL of {@code route} if it is one or was already looked up, without waiting; otherwise
   * null.
   */
  String knownUrl(String route) {
    if (isUrl(route)) {
      return route;
    }
    CompletableFuture<String> known = urls.get(route);
    return known != null && known.isDone() && !known.isCompletedExceptionally()
        ? known.join()
        : null;
  }

  /**
   * The URL of {@code route}. The returned future is shared between callers: never cancel it.
   *
   * @param timeout the longest a lookup may take
   */
  CompletableFuture<String> resolve(String route, Duration timeout) {
    if (isUrl(route)) {
      return CompletableFuture.completedFuture(route);
    }
    CompletableFuture<String> known = urls.get(route);
    if (known != null) {
      return known;
    }
    CompletableFuture<String> mine = new CompletableFuture<>();
    known = urls.putIfAbsent(route, mine);
    if (known != null) {
      return known;
    }
    lookUp(route, timeout)
        .whenComplete(
            (url, error) -> {
              if (error != null) {
                urls.remove(route, mine);
                mine.completeExceptionally(error);
              } else {
                log.info("SQS queue {} has URL {}", route, url);
                mine.complete(url);
              }
            });
    return mine;
  }

  private CompletableFuture<String> lookUp(String name, Duration timeout) {
    try {
      return client
          .getQueueUrl(r -> r.queueName(name).overrideConfiguration(o -> o.apiCallTimeout(timeout)))
          .thenApply(GetQueueUrlResponse::queueUrl);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
