@NullMarked
package dev.arbor.studio.planning;

import org.jspecify.annotations.NullMarked;
