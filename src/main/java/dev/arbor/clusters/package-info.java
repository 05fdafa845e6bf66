@NullMarked
package dev.arbor.clusters;

import org.jspecify.annotations.NullMarked;
