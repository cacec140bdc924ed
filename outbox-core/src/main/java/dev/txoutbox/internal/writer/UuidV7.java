package dev.txoutbox.internal.writer;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Time-ordered UUIDs (RFC 9562 version 7): 48 bits of Unix milliseconds, then 74 random bits. New
 * ids land at the right edge of the primary-key index instead of all over it.
 */
final class UuidV7 {

  private UuidV7() {}

  static UUID next(long epochMillis) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long msb = (epochMillis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb);
  }
}
