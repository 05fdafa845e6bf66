@NullMarked
package dev.arbor.studio.running;

import org.jspecify.annotations.NullMarked;
