@NullMarked
package dev.arbor.studio.work;

import org.jspecify.annotations.NullMarked;
