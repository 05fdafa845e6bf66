@NullMarked
package dev.arbor.connectors.agents;

import org.jspecify.annotations.NullMarked;
