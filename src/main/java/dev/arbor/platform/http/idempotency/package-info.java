@NullMarked
package dev.arbor.platform.http.idempotency;

import org.jspecify.annotations.NullMarked;
