@NullMarked
package dev.arbor.platform.metrics;

import org.jspecify.annotations.NullMarked;
