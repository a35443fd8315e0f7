package dev.shale.storage;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Exempts a class, method or field from the build's check of forbidden calls
 * (build/forbidden-apis.txt: the JDK's clocks, threads, sleeps and files, which code reaches only
 * through an {@link Env}). The forbiddenapis plugin recognises any annotation of this simple
 * name. Only the real environment may carry it ({@link Env#real()}, {@link Vfs#real()}), a
 * Netty adapter whose library needs its own timing, and the server's few reads of what is not
 * the store's (the operator's TLS files, /proc), each saying why.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface SuppressForbidden {
  /** Why the exempted code must call the JDK directly. */
  String reason();
}
