/** Work a server repeats on a timer, kept repeating when one round fails. */
@NullMarked
package dev.arbor.platform.timers;

import org.jspecify.annotations.NullMarked;
