package dev.txoutbox.console;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The console's requeue and purge actions, each run as a job on one daemon thread ({@code
 * txoutbox-console-action}, so actions never overlap): the request that starts one waits for it up
 * to {@link #ANSWER_WITHIN} and answers its result, or answers at once with the job's id, whose
 * progress (dead letters changed so far, chunks done) the page then polls. The last {@value #KEEP}
 * jobs are kept. Thread-safe.
 */
final class BulkJobs implements AutoCloseable {

  /** How long the request that starts an action waits for its end: 2 seconds. */
  static final Duration ANSWER_WITHIN = Duration.ofSeconds(2);

  /** Jobs remembered for their pages: the last 50. */
  static final int KEEP = 50;

  /** A job id's length: 22 characters (128 random bits). */
  static final int ID_LENGTH = 22;

  private final SecureRandom random = new SecureRandom();
  private final Map<String, Job> jobs =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Job> eldest) {
          return size() > KEEP;
        }
      };
  private @Nullable ExecutorService thread;

  /** One action: what it does, to what, and how far it has come. */
  static final class Job {
    final String id;
    final String outbox;
    final String action;
    final String selection;
    final long expected;
    final AtomicLong changed = new AtomicLong();
    final AtomicInteger chunks = new AtomicInteger();
    volatile String state = "running";
    volatile @Nullable String error;
    volatile @Nullable Future<Long> future;

    Job(String id, String outbox, String action, String selection, long expected) {
      this.id = id;
      this.outbox = outbox;
      this.action = action;
      this.selection = selection;
      this.expected = expected;
    }

    Map<String, Object> json() {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("job", id);
      json.put("outbox", outbox);
      json.put("action", action);
      json.put("selection", selection);
      json.put("state", state);
      json.put("expected", expected);
      json.put("count", changed.get());
      json.put("chunks", chunks.get());
      json.put("error", error);
      return json;
    }
  }

  /** What a job runs: the action over the selection, telling its progress. */
  interface Work {
    long run(LongConsumer progress);
  }

  /**
   * Starts {@code work} as a job and waits for it up to {@link #ANSWER_WITHIN}.
   *
   * @param finished told the job's end: the rows changed, or the failure
   * @throws RuntimeException the job's own failure, when it failed within the wait
   */
  Job start(
      String outbox,
      String action,
      String selection,
      long expected,
      Work work,
      Consumer<Job> finished) {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    Job job =
        new Job(
            Base64.getUrlEncoder().withoutPadding().encodeToString(bytes),
            outbox,
            action,
            selection,
            expected);
    synchronized (jobs) {
      if (thread == null) {
        thread =
            Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, "txoutbox-console-action");
                  t.setDaemon(true);
                  return t;
                });
      }
      jobs.put(job.id, job);
      job.future =
          thread.submit(
              () -> {
                try {
                  long changed =
                      work.run(
                          total -> {
                            job.changed.set(total);
                            job.chunks.incrementAndGet();
                          });
                  job.changed.set(changed);
                  job.state = "done";
                  finished.accept(job);
                  return changed;
                } catch (RuntimeException e) {
                  job.error = String.valueOf(Text.masked(e.getMessage()));
                  job.state = "failed";
                  finished.accept(job);
                  throw e;
                }
              });
    }
    try {
      job.future.get(ANSWER_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException stillRunning) {
      // The page polls its progress.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(e.getCause());
    }
    return job;
  }

  /** The job {@code id}, or null when unknown (or forgotten). */
  @Nullable Job get(String id) {
    synchronized (jobs) {
      return jobs.get(id);
    }
  }

  @Override
  public void close() {
    synchronized (jobs) {
      if (thread != null) {
        thread.shutdown();
      }
    }
  }
}
