package dev.arbor.platform.outbound;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands a response body, read as a stream, to a JDK body subscriber as fast as it asks for it, on a virtual thread of
 * its own: a subscriber that gives its body before the end ({@code ofInputStream}) is read by its caller meanwhile.
 */
final class BodyPump implements Flow.Subscription, Runnable {
    private static final int CHUNK = 64 * 1024;

    private final InputStream in;
    private final HttpResponse.BodySubscriber<?> subscriber;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wanted = lock.newCondition();
    private long demand;
    private boolean cancelled;

    private BodyPump(InputStream in, HttpResponse.BodySubscriber<?> subscriber) {
        this.in = in;
        this.subscriber = subscriber;
    }

    static void start(InputStream in, HttpResponse.BodySubscriber<?> subscriber) {
        var pump = new BodyPump(in, subscriber);
        subscriber.onSubscribe(pump);
        Thread.ofVirtual().name("outbound-body").start(pump);
    }

    @Override
    public void request(long n) {
        lock.lock();
        try {
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            wanted.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void cancel() {
        lock.lock();
        try {
            cancelled = true;
            wanted.signalAll();
        } finally {
            lock.unlock();
        }
        closeQuietly(); // a read in progress ends now, and the connection is not kept for a body nobody reads
    }

    @Override
    public void run() {
        try (in) {
            byte[] buffer = new byte[CHUNK];
            while (awaitDemand()) {
                int read = in.read(buffer);
                if (read < 0) {
                    subscriber.onComplete();
                    return;
                }
                subscriber.onNext(List.of(ByteBuffer.wrap(Arrays.copyOf(buffer, read))));
            }
        } catch (IOException e) {
            if (!isCancelled()) {
                subscriber.onError(e);
            }
        } catch (InterruptedException e) {
            subscriber.onError(e);
        }
    }

    private boolean awaitDemand() throws InterruptedException {
        lock.lock();
        try {
            while (demand == 0 && !cancelled) {
                wanted.await();
            }
            if (cancelled) {
                return false;
            }
            demand--;
            return true;
        } finally {
            lock.unlock();
        }
    }

    private boolean isCancelled() {
        lock.lock();
        try {
            return cancelled;
        } finally {
            lock.unlock();
        }
    }

    private void closeQuietly() {
        try {
            in.close();
        } catch (IOException e) {
            // the body is given up: nothing is waiting on its end
        }
    }
}
