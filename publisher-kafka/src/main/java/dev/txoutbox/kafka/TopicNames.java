package dev.txoutbox.kafka;

import java.util.regex.Pattern;

/** Kafka's rules for topic names, checked before a send so a bad name fails fast and for good. */
final class TopicNames {

  private static final int MAX_LENGTH = 249;
  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]*");

  private TopicNames() {}

  /** Why {@code topic} is not a legal topic name, or null if it is. */
  static String problem(String topic) {
    if (topic == null || topic.isEmpty()) {
      return "a topic name must not be empty";
    }
    if (topic.equals(".") || topic.equals("..")) {
      return "a topic name must not be '.' or '..'";
    }
    if (topic.length() > MAX_LENGTH) {
      return "a topic name must be at most " + MAX_LENGTH + " characters, not " + topic.length();
    }
    return legalCharacters(topic)
        ? null
        : "topic name '" + topic + "' may contain only ASCII letters, digits, '.', '_' and '-'";
  }

  /** Whether every character of {@code text} may appear in a topic name. */
  static boolean legalCharacters(String text) {
    return LEGAL.matcher(text).matches();
  }
}
