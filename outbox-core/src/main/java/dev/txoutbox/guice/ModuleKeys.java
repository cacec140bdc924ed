package dev.txoutbox.guice;

import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import java.lang.annotation.Annotation;
import org.jspecify.annotations.Nullable;

/**
 * The keys one {@link OutboxModule} binds and reads: all unqualified, or all with one binding
 * annotation, so that modules with different annotations never bind the same key. Immutable.
 */
final class ModuleKeys {

  private final @Nullable Annotation annotation;
  private final @Nullable Class<? extends Annotation> annotationType;

  private ModuleKeys(
      @Nullable Annotation annotation, @Nullable Class<? extends Annotation> annotationType) {
    this.annotation = annotation;
    this.annotationType = annotationType;
  }

  static ModuleKeys unqualified() {
    return new ModuleKeys(null, null);
  }

  /**
   * @throws IllegalArgumentException if {@code annotation} is not a binding annotation
   */
  static ModuleKeys annotatedWith(Annotation annotation) {
    ModuleKeys keys = new ModuleKeys(annotation, null);
    keys.of(Object.class); // Guice checks that it is a binding annotation
    return keys;
  }

  /**
   * @throws IllegalArgumentException if {@code annotationType} is not a binding annotation
   */
  static ModuleKeys annotatedWith(Class<? extends Annotation> annotationType) {
    ModuleKeys keys = new ModuleKeys(null, annotationType);
    keys.of(Object.class);
    return keys;
  }

  boolean qualified() {
    return annotation != null || annotationType != null;
  }

  <T> Key<T> of(Class<T> type) {
    return of(TypeLiteral.get(type));
  }

  <T> Key<T> of(TypeLiteral<T> type) {
    if (annotation != null) {
      return Key.get(type, annotation);
    }
    if (annotationType != null) {
      return Key.get(type, annotationType);
    }
    return Key.get(type);
  }

  /**
   * How messages name a binding of {@code type} this module reads, such as {@code DataSource
   * annotated with @Named("billing")}. (Guice's error messages shorten type names to simple ones.)
   */
  String binding(Class<?> type) {
    String named = type.getSimpleName();
    return qualified() ? named + " annotated with " + qualifier() : named;
  }

  /** The qualifier as source shows it, or an empty text. */
  String qualifier() {
    if (annotation != null) {
      return annotation.toString();
    }
    return annotationType != null ? "@" + annotationType.getName() : "";
  }

  /** {@code OutboxModule}, with its qualifier if it has one. */
  String module() {
    return qualified() ? "OutboxModule " + qualifier() : "OutboxModule";
  }
}
