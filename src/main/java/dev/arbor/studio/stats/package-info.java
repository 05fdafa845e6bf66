@NullMarked
package dev.arbor.studio.stats;

import org.jspecify.annotations.NullMarked;
