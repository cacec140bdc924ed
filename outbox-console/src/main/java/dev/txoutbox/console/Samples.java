package dev.txoutbox.console;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last hour of one outbox as the console sampled it: a ring buffer of (time, pending, published
 * per second) points, oldest first. Held in memory only, so it starts empty with the console and
 * covers only the time the console has run. Thread-safe.
 */
final class Samples {

  /** One point of the charts. */
  record Point(long epochMillis, long pending, double publishedPerSecond) {}

  private final Point[] ring;
  private int next;
  private int size;

  /** A buffer of {@code capacity} points. */
  Samples(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1 but was " + capacity);
    }
    this.ring = new Point[capacity];
  }

  synchronized void add(Point point) {
    ring[next] = point;
    next = (next + 1) % ring.length;
    size = Math.min(size + 1, ring.length);
  }

  /** The points, oldest first. */
  synchronized List<Point> points() {
    List<Point> points = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      points.add(ring[(next - size + i + ring.length) % ring.length]);
    }
    return points;
  }

  /** The points as JSON: parallel arrays {@code t} (epoch ms), {@code pending}, {@code rate}. */
  Map<String, Object> json() {
    List<Point> points = points();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("t", points.stream().map(Point::epochMillis).toList());
    json.put("pending", points.stream().map(Point::pending).toList());
    json.put("publishedPerSecond", points.stream().map(Point::publishedPerSecond).toList());
    return json;
  }
}
