@NullMarked
package dev.arbor.platform.ratelimits;

import org.jspecify.annotations.NullMarked;
