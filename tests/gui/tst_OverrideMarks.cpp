// The Subjects page's join of rows with the override index (ui/subjects/OverrideMarks), without
// Redis: which override applies to a row (the action's own before the every-action one, none once
// it ended), what the summary counts, and the worker's filter by override over 200,000 rows
// finding exactly the marked ones.
#include "ui/subjects/OverrideMarks.h"
#include "ui/subjects/SubjectOrder.h"

#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class tst_OverrideMarks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void actionBeforeEveryAction();
    void endedOverridesDoNotApply();
    void filterFindsTheMarkedRows();

private:
    static Override make(const QByteArray& user, const QByteArray& action, OverrideKind kind,
                         qint64 untilMs = 0);
};

Override tst_OverrideMarks::make(const QByteArray& user, const QByteArray& action,
                                 OverrideKind kind, qint64 untilMs)
{
    Override o;
    o.user = user;
    o.action = action;
    o.kind = kind;
    if (kind == OverrideKind::Limit)
        o.windows = {{20, 60'000}};
    o.untilMs = untilMs;
    return o;
}

void tst_OverrideMarks::actionBeforeEveryAction()
{
    const OverrideMarks marks({make("ann", "like", OverrideKind::Limit),
                               make("ann", "*", OverrideKind::Unlimited),
                               make("bob", "like", OverrideKind::Limit)});
    QCOMPARE(marks.find("ann", "like", 0)->kind, OverrideKind::Limit);
    QCOMPARE(marks.find("ann", "comment", 0)->kind, OverrideKind::Unlimited);
    QCOMPARE(marks.find("ann", "", 0)->kind, OverrideKind::Unlimited); // a user-wide ban row
    QVERIFY(marks.find("bob", "like", 0));
    QVERIFY(!marks.find("bob", "comment", 0));
    QVERIFY(!marks.find("bob", "", 0));
    QVERIFY(!marks.find("carol", "like", 0));
    QVERIFY(!marks.find("an", "like", 0)); // whole ids, not prefixes
    QCOMPARE(marks.overriddenUsers(), 2);  // ann and bob have other limits
    QCOMPARE(marks.exemptUsers(), 1);      // ann is also exempt elsewhere
}

void tst_OverrideMarks::endedOverridesDoNotApply()
{
    const OverrideMarks marks({make("ann", "like", OverrideKind::Limit, 1'000),
                               make("ann", "*", OverrideKind::Unlimited, 5'000)});
    QCOMPARE(marks.find("ann", "like", 999)->kind, OverrideKind::Limit);
    // The action's own ended: the every-action one applies until it ends too.
    QCOMPARE(marks.find("ann", "like", 1'000)->kind, OverrideKind::Unlimited);
    QVERIFY(!marks.find("ann", "like", 5'000));
}

void tst_OverrideMarks::filterFindsTheMarkedRows()
{
    SubjectStore store;
    constexpr int kUsers = 100'000;
    store.reserve(2 * kUsers);
    for (int i = 0; i < kUsers; ++i) {
        for (const char* action : {"like", "comment"}) {
            Subject s;
            s.user = "user-" + QByteArray::number(i);
            s.action = action;
            s.hasPolicy = true;
            s.stateKnown = true;
            s.state.count = 1;
            s.state.limit = 10;
            store.apply(s, 0, 0);
        }
    }
    auto marks = std::make_shared<const OverrideMarks>(std::vector<Override>{
        make("user-7", "like", OverrideKind::Limit),
        make("user-99999", "*", OverrideKind::Unlimited),
        make("user-123", "*", OverrideKind::Limit), make("nobody", "*", OverrideKind::Unlimited)});

    OrderRequest request;
    request.marks = marks;
    request.nowMs = 1;
    request.filter.state = SubjectFilter::State::Overridden;
    const StoreSnapshot snapshot = store.snapshot();
    RowOrder overridden = computeOrder(snapshot, request);
    QStringList found;
    for (quint32 row : overridden.rows)
        found << QString::fromUtf8(snapshot.user(snapshot.rows.at(row))) + QLatin1Char('/') +
                     QString::fromUtf8(snapshot.actions.at(snapshot.rows.at(row).action));
    found.sort();
    QCOMPARE(found, (QStringList{QStringLiteral("user-123/comment"),
                                 QStringLiteral("user-123/like"), QStringLiteral("user-7/like")}));

    request.filter.state = SubjectFilter::State::Exempt;
    QCOMPARE(computeOrder(snapshot, request).rows.size(), size_t(2)); // both of user-99999's
    request.marks.reset(); // no index read yet: nobody is marked
    QCOMPARE(computeOrder(snapshot, request).rows.size(), size_t(0));
}

QTEST_MAIN(tst_OverrideMarks)
#include "tst_OverrideMarks.moc"
