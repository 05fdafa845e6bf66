@NullMarked
package dev.arbor.platform.outbound;

import org.jspecify.annotations.NullMarked;
