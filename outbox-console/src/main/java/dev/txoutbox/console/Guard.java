package dev.txoutbox.console;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Who may read and act. Every request names an allowed host ({@link #requireAllowedHost}). Every
 * POST passes four checks, in this order, before anything is read or changed.
 *
 * <ol>
 *   <li>the console has an {@link AdminCredential} (otherwise it is read-only: 403);
 *   <li>the request comes from the console's own pages or from no browser at all: {@code
 *       Sec-Fetch-Site}, when sent, is {@code same-origin}, and {@code Origin}, when sent, names
 *       the host the request was sent to (otherwise 403);
 *   <li>it carries the credential as a bearer token or basic auth password (otherwise 401);
 *   <li>it carries this console's CSRF token in header {@value #CSRF_HEADER} (otherwise 403).
 * </ol>
 *
 * Thread-safe.
 */
final class Guard {

  /** The header that carries the CSRF token of {@code GET api/session}. */
  static final String CSRF_HEADER = "X-CSRF-Token";

  private static final Map<String, String> CHALLENGE =
      Map.of("WWW-Authenticate", "Bearer realm=\"txoutbox console\"");

  /** Longest operator name taken from basic auth for the audit log. */
  private static final int MAX_OPERATOR_LENGTH = 64;

  private final @Nullable AdminCredential credential;
  private final Set<String> allowedHosts;
  private final String csrfToken;

  /**
   * @param allowedHosts the host names requests may name in {@code Host}, lower case, IPv6 without
   *     brackets; empty to accept any
   */
  Guard(@Nullable AdminCredential credential, Set<String> allowedHosts, SecureRandom random) {
    this.credential = credential;
    this.allowedHosts = Set.copyOf(allowedHosts);
    byte[] token = new byte[32];
    random.nextBytes(token);
    this.csrfToken = Base64.getUrlEncoder().withoutPadding().encodeToString(token);
  }

  /**
   * Refuses a request whose {@code Host} is not one of the allowed hosts: a page on another site
   * whose name was made to resolve to this console's address (DNS rebinding) names its own host.
   *
   * @throws Refusal 403 naming the host and the allowed ones
   */
  void requireAllowedHost(ConsoleRequest request) {
    if (allowedHosts.isEmpty()) {
      return;
    }
    String host = request.header("Host");
    String name = host == null ? "" : hostName(host);
    if (!allowedHosts.contains(name)) {
      throw new Refusal(
          403,
          "Host must be one of "
              + new TreeSet<>(allowedHosts)
              + " (allowedHosts) but was "
              + Text.quoted(host == null ? "" : host),
          Map.of());
    }
  }

  /**
   * The host name of a {@code Host} header: without the port, IPv6 without brackets, lower case.
   */
  static String hostName(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(1, end);
    }
    int colon = h.indexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }

  boolean readOnly() {
    return credential == null;
  }

  /** The token the console's pages send back on each action. */
  String csrfToken() {
    return csrfToken;
  }

  /**
   * The operator of an action request, for the audit log, once every check passed.
   *
   * @throws Refusal 403 or 401 as the class comment says
   */
  String authorize(ConsoleRequest request) {
    if (credential == null) {
      throw new Refusal(
          403,
          "the console is read-only: it was started without an admin credential"
              + " (adminCredential), so nothing can be requeued or purged",
          Map.of());
    }
    requireSameOrigin(request);
    String operator = operator(request, credential);
    String token = request.header(CSRF_HEADER);
    if (token == null
        || !MessageDigest.isEqual(
            token.getBytes(StandardCharsets.UTF_8), csrfToken.getBytes(StandardCharsets.UTF_8))) {
      throw new Refusal(
          403,
          "the request must carry the console's CSRF token in header "
              + CSRF_HEADER
              + " (from GET api/session) but "
              + (token == null ? "carried none" : "carried another"),
          Map.of());
    }
    return operator;
  }

  private static void requireSameOrigin(ConsoleRequest request) {
    String site = request.header("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin")) {
      throw new Refusal(
          403,
          "cross-site request refused: Sec-Fetch-Site must be same-origin but was "
              + Text.quoted(site),
          Map.of());
    }
    String origin = request.header("Origin");
    if (origin != null) {
      String host = request.header("Host");
      if (host == null || !host.equalsIgnoreCase(authority(origin))) {
        throw new Refusal(
            403,
            "cross-site request refused: Origin must be this console's host "
                + Text.quoted(host == null ? "" : host)
                + " but was "
                + Text.quoted(origin),
            Map.of());
      }
    }
  }

  private static String authority(String origin) {
    try {
      String authority = URI.create(origin).getRawAuthority();
      return authority == null ? "" : authority;
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  /** Who presented the credential: the basic auth user, or "bearer token". */
  private static String operator(ConsoleRequest request, AdminCredential credential) {
    String authorization = request.header("Authorization");
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      if (credential.matches(authorization.substring(7).strip())) {
        return "bearer token";
      }
    } else if (authorization != null && authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      String pair = decode(authorization.substring(6).strip());
      int colon = pair.indexOf(':');
      if (colon >= 0 && credential.matches(pair.substring(colon + 1))) {
        String user = pair.substring(0, colon).replaceAll("[^\\p{Alnum}._@-]", "_");
        user = user.length() > MAX_OPERATOR_LENGTH ? user.substring(0, MAX_OPERATOR_LENGTH) : user;
        return user.isEmpty() ? "basic auth" : "basic auth user " + user;
      }
    }
    throw new Refusal(
        401,
        authorization == null
            ? "this action needs the admin credential (Authorization: Bearer <secret>, or basic"
                + " auth with it as the password) but the request carried none"
            : "the admin credential presented is not this console's",
        CHALLENGE);
  }

  private static String decode(String base64) {
    try {
      return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return "";
    }
  }
}
