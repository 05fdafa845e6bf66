@NullMarked
package dev.arbor.platform.tracing;

import org.jspecify.annotations.NullMarked;
