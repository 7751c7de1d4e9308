// core/redis/Context + ThreadAnchor: a result posted from one thread to an object of another
// reaches it on its own thread, and is dropped, without touching freed memory, when the object
// or its whole thread is gone. The race this guards against: a node's worker thread delivering
// to a cluster router that the router's own thread deletes at that moment (a segfault in
// tollgatectl on a cluster about one run in twenty before the anchor).

#include "tollgate/Result.h"

#include <QtTest>
#include <atomic>
#include <memory>
#include <thread>

using tollgate::Context;

class ContextTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runsOnTheObjectsThread();
    void dropsWhenTheObjectIsGone();
    void postingWhileTheObjectIsDeletedIsSafe();
    void dropsAndFreesOnceTheThreadFinished();
    void aRestartedThreadGetsANewAnchor();
    void nullContextPostsNothing();
};

namespace {

/// A started worker thread, stopped and joined at scope exit.
struct Worker
{
    QThread thread;
    Worker() { thread.start(); }
    ~Worker()
    {
        thread.quit();
        thread.wait();
    }
};

/// An object living on `thread`, made there.
QObject* objectOn(QThread* thread)
{
    auto* object = new QObject;
    object->moveToThread(thread);
    return object;
}

} // namespace

void ContextTest::runsOnTheObjectsThread()
{
    Worker worker;
    QObject* object = objectOn(&worker.thread);
    std::atomic<QThread*> ranOn{nullptr};
    Context(object).post([&] { ranOn = QThread::currentThread(); });
    QTRY_COMPARE(ranOn.load(), &worker.thread);
    QMetaObject::invokeMethod(object, [object] { delete object; }, Qt::BlockingQueuedConnection);
}

void ContextTest::dropsWhenTheObjectIsGone()
{
    Worker worker;
    QObject* object = objectOn(&worker.thread);
    const Context context(object);
    QMetaObject::invokeMethod(object, [object] { delete object; }, Qt::BlockingQueuedConnection);

    std::atomic<bool> ran{false};
    std::atomic<bool> fence{false};
    context.post([&] { ran = true; });
    // Anything queued on the thread afterwards runs after the dropped call would have.
    Context(objectOn(&worker.thread)).post([&] { fence = true; });
    QTRY_VERIFY(fence.load());
    QVERIFY(!ran.load());
}

void ContextTest::postingWhileTheObjectIsDeletedIsSafe()
{
    // Before ThreadAnchor, post() checked the object on the posting thread and then queued on
    // it, while its own thread could be deleting it in between.
    Worker worker;
    for (int round = 0; round < 300; ++round) {
        QObject* object = objectOn(&worker.thread);
        const Context context(object);
        std::atomic<bool> stop{false};
        std::atomic<int> ran{0};
        std::thread poster([&] {
            while (!stop.load())
                context.post([&] { ++ran; });
        });
        QThread::usleep(round % 7 * 50);
        QMetaObject::invokeMethod(object, [object] { delete object; },
                                  Qt::BlockingQueuedConnection);
        stop = true;
        poster.join();
        const int ranBefore = ran.load();
        // Whatever was queued after the deletion is dropped, not run.
        QMetaObject::invokeMethod(objectOn(&worker.thread), [] {}, Qt::BlockingQueuedConnection);
        QCOMPARE(ran.load(), ranBefore);
    }
}

void ContextTest::dropsAndFreesOnceTheThreadFinished()
{
    auto captured = std::make_shared<int>(7);
    std::atomic<bool> ran{false};
    {
        QThread thread;
        thread.start();
        QObject* object = objectOn(&thread);
        const Context context(object);
        thread.quit();
        thread.wait();
        // The anchor is gone with the thread: the call is dropped and its captures freed now,
        // not leaked in a queue that no thread will ever run.
        context.post([&ran, captured] { ran = true; });
        QCOMPARE(captured.use_count(), 1L);
        delete object;
    }
    QVERIFY(!ran.load());
}

void ContextTest::aRestartedThreadGetsANewAnchor()
{
    QThread thread;
    for (int run = 0; run < 2; ++run) {
        thread.start();
        QObject* object = objectOn(&thread);
        std::atomic<bool> ran{false};
        Context(object).post([&] { ran = true; }); // the second run: not the retired anchor
        QTRY_VERIFY(ran.load());
        QMetaObject::invokeMethod(object, [object] { delete object; },
                                  Qt::BlockingQueuedConnection);
        thread.quit();
        thread.wait();
    }
}

void ContextTest::nullContextPostsNothing()
{
    const Context context;
    QVERIFY(context.isNull());
    QCOMPARE(context.identity(), nullptr);
    bool ran = false;
    context.post([&] { ran = true; });
    QCoreApplication::processEvents();
    QVERIFY(!ran);
}

QTEST_GUILESS_MAIN(ContextTest)
#include "tst_Context.moc"
