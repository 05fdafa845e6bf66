@NullMarked
package dev.arbor.platform.logging;

import org.jspecify.annotations.NullMarked;
