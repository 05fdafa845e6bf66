@NullMarked
package dev.arbor.routers;

import org.jspecify.annotations.NullMarked;
