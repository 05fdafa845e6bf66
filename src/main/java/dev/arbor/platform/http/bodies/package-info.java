@NullMarked
package dev.arbor.platform.http.bodies;

import org.jspecify.annotations.NullMarked;
