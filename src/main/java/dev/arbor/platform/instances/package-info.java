@NullMarked
package dev.arbor.platform.instances;

import org.jspecify.annotations.NullMarked;
