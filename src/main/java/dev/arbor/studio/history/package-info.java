@NullMarked
package dev.arbor.studio.history;

import org.jspecify.annotations.NullMarked;
