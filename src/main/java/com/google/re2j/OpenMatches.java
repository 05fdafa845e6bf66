package com.google.re2j;

import java.util.BitSet;

/**
 * What RE2/J's matcher does not say and a stream's content rules need (java.util.regex's {@code hitEnd}): whether
 * more text could still make, or lengthen, a match that starts at a place of the text so far. The pattern's program
 * is run from that place over the rest of the text, every thread at once (linear in the text's length, as RE2's own
 * matching is); the answer is yes when a thread still waits for a character at the end. Assertions of empty width
 * ({@code ^ $ \b}) are taken as holding, so the answer may be yes where more text cannot help, never the reverse: a
 * match is only held back longer, never missed.
 *
 * <p>In RE2/J's package because the program it runs is not public; RE2/J is pinned in the pom.
 */
public final class OpenMatches {
    private OpenMatches() {}

    /** Whether text from {@code from} on is the start of a possible match of {@code pattern} that goes on past it. */
    public static boolean continuesPastEnd(Pattern pattern, CharSequence text, int from) {
        Prog prog = pattern.re2().prog;
        BitSet threads = new BitSet(prog.numInst());
        add(prog, prog.start, threads);
        int at = from;
        while (at < text.length() && !threads.isEmpty()) {
            int rune = Character.codePointAt(text, at);
            at += Character.charCount(rune);
            BitSet next = new BitSet(prog.numInst());
            for (int pc = threads.nextSetBit(0); pc >= 0; pc = threads.nextSetBit(pc + 1)) {
                Inst inst = prog.inst[pc];
                if (accepts(inst, rune)) {
                    add(prog, inst.out, next);
                }
            }
            threads = next;
        }
        return !threads.isEmpty();
    }

    /** The threads from {@code pc} on that wait for a character; none for a match or a dead end. */
    private static void add(Prog prog, int start, BitSet threads) {
        var seen = new BitSet(prog.numInst());
        var stack = new int[prog.numInst() * 2 + 1];
        int top = 0;
        stack[top++] = start;
        while (top > 0) {
            int pc = stack[--top];
            if (seen.get(pc)) {
                continue;
            }
            seen.set(pc);
            Inst inst = prog.inst[pc];
            switch (inst.op) {
                case Inst.ALT, Inst.ALT_MATCH -> {
                    stack[top++] = inst.out;
                    stack[top++] = inst.arg;
                }
                case Inst.CAPTURE, Inst.NOP, Inst.EMPTY_WIDTH -> stack[top++] = inst.out;
                case Inst.RUNE, Inst.RUNE1, Inst.RUNE_ANY, Inst.RUNE_ANY_NOT_NL -> threads.set(pc);
                default -> {
                    // MATCH or FAIL: nothing more to read
                }
            }
        }
    }

    private static boolean accepts(Inst inst, int rune) {
        return switch (inst.op) {
            case Inst.RUNE_ANY -> true;
            case Inst.RUNE_ANY_NOT_NL -> rune != '\n';
            default -> inst.matchRune(rune);
        };
    }
}
