@NullMarked
package dev.arbor.deployments;

import org.jspecify.annotations.NullMarked;
