package dev.txoutbox.sqs;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/** SQS's rules for names, ids and text, in one place. Stateless and thread-safe. */
final class SqsText {

  /** SQS's longest message attribute name. */
  static final int MAX_ATTRIBUTE_NAME_LENGTH = 256;

  /** SQS's longest {@code MessageGroupId}. */
  static final int MAX_GROUP_ID_LENGTH = 128;

  private SqsText() {}

  /** The number of bytes {@code text} takes in UTF-8, without encoding it. */
  static int utf8Length(String text) {
    int bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3; // a lone surrogate is counted as 3 bytes too: never an underestimate
      }
    }
    return bytes;
  }

  /**
   * Whether {@code name} can be a message attribute name: 1 to 256 of {@code [A-Za-z0-9_.-]}, no
   * leading, trailing or doubled period, and no {@code AWS.} or {@code Amazon.} prefix (any case).
   */
  static boolean isValidAttributeName(String name) {
    if (name.isEmpty() || name.length() > MAX_ATTRIBUTE_NAME_LENGTH) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean allowed =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-'
              || c == '.';
      if (!allowed) {
        return false;
      }
    }
    String lower = name.toLowerCase(Locale.ROOT);
    return !name.startsWith(".")
        && !name.endsWith(".")
        && !name.contains("..")
        && !lower.startsWith("aws.")
        && !lower.startsWith("amazon.");
  }

  /**
   * Whether SQS accepts {@code text} as a message body or attribute value: only {@code #x9 | #xA |
   * #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF}.
   */
  static boolean isValidText(String text) {
    return firstInvalidChar(text) < 0;
  }

  /** The index of the first character of {@code text} that SQS refuses, or -1 if none. */
  static int firstInvalidChar(String text) {
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      boolean allowed =
          c == 0x9
              || c == 0xA
              || c == 0xD
              || (c >= 0x20 && c <= 0xD7FF)
              || (c >= 0xE000 && c <= 0xFFFD)
              || (c >= 0x10000 && c <= 0x10FFFF);
      if (!allowed) {
        return i;
      }
      i += Character.charCount(c);
    }
    return -1;
  }

  /**
   * The {@code MessageGroupId} for an aggregate id: the id itself when SQS accepts it (1 to 128
   * characters from ASCII 33 to 126), otherwise {@code sha256-} and the hex SHA-256 of its UTF-8
   * bytes, so that every event of the aggregate still lands in the same group.
   */
  static String groupId(String aggregateId) {
    if (isValidGroupId(aggregateId)) {
      return aggregateId;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(aggregateId.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static boolean isValidGroupId(String id) {
    if (id.isEmpty() || id.length() > MAX_GROUP_ID_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < 33 || c > 126) {
        return false;
      }
    }
    return true;
  }
}
