// Reading raw keys as a developer does: the value viewers for the hashes, zsets and streams
// Tollgate writes (bans, sliding logs, audit trails), the wrong-type flag for a key that
// breaks the schema, and what right-click and double-click do on the Keys page.

#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"
#include "ui/common/Session.h"
#include "ui/keys/KeyActions.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"
#include "ui/keys/ValueViewer.h"
#include "ui/user/UserDetailDialog.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class KeyViewersTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void hashOfABan();
    void zsetOfASlidingLog();
    void streamOfAnAuditTrail();
    void wrongTypeIsFlagged();
    void doubleClickAndContextMenu();
    void keysPageCountsDownAndFlagsWrongTypes();

private:
    std::unique_ptr<ValueViewer> open(const QByteArray& key);
    QStringList column(QTableWidget* table, int column);
    int headerIndex(QTableWidget* table, const QString& header);

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
};

void KeyViewersTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("tester"));
}

void KeyViewersTest::cleanupTestCase()
{
    m_session.reset();
}

std::unique_ptr<ValueViewer> KeyViewersTest::open(const QByteArray& key)
{
    return test::openValueViewer(m_session.get(), key);
}

QStringList KeyViewersTest::column(QTableWidget* table, int column)
{
    QStringList values;
    for (int r = 0; r < table->rowCount(); ++r)
        values << (table->item(r, column) ? table->item(r, column)->text() : QString());
    return values;
}

int KeyViewersTest::headerIndex(QTableWidget* table, const QString& header)
{
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == header)
            return c;
    return -1;
}

void KeyViewersTest::hashOfABan()
{
    BanRequest request{"mallory", "like", QStringLiteral("tester"), QStringLiteral("spam wave"),
                       3'600'000, 0};
    std::optional<Result<BanInfo>> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r; });
    QTRY_VERIFY(banned.has_value());
    QVERIFY(*banned);
    auto viewer = open(m_session->schema().actionBanKey("mallory", "like"));
    QCOMPARE(viewer->type(), QByteArray("hash"));
    QTableWidget* table = viewer->table();
    const QStringList fields = column(table, 0);
    QVERIFY2(fields.contains(QStringLiteral("reason")), qPrintable(fields.join(QLatin1Char(','))));
    const int reason = int(fields.indexOf(QStringLiteral("reason")));
    QCOMPARE(table->item(reason, 1)->text(), QStringLiteral("spam wave"));
    // Millisecond time stamps are shown as times too.
    const int until = int(fields.indexOf(QStringLiteral("until_ms")));
    QVERIFY(until >= 0);
    QCOMPARE(table->item(until, 2)->text(), formatTime((*banned)->untilMs));
    auto* ttl = viewer->findChild<QLabel*>(QStringLiteral("ttlLabel"));
    QVERIFY2(ttl->text().startsWith(QStringLiteral("Expires in 59m")), qPrintable(ttl->text()));
    QVERIFY(
        !viewer->findChild<QLabel*>(QStringLiteral("wrongTypeLabel"))->isVisibleTo(viewer.get()));
}

void KeyViewersTest::zsetOfASlidingLog()
{
    Policy policy;
    policy.action = "api";
    policy.algorithm = Algorithm::SlidingLog;
    policy.windows = {{5, 60'000}};
    for (int i = 0; i < 3; ++i) {
        std::optional<bool> ok;
        m_session->limiter().hit(policy, "bob", 0, this, [&](Result<HitResult> r) { ok = r.ok(); });
        QTRY_VERIFY(ok.has_value() && *ok);
    }
    const QByteArray key =
        m_session->schema().stateKey("bob", "api", Algorithm::SlidingLog, 60'000);
    auto viewer = open(key);
    QCOMPARE(viewer->type(), QByteArray("zset"));
    QCOMPARE(viewer->table()->rowCount(), 3);
    QCOMPARE(viewer->table()->horizontalHeaderItem(0)->text(), QStringLiteral("Hit time"));
    // The scores are hit times: shown as today's times.
    const QString today = formatTime(QDateTime::currentMSecsSinceEpoch()).left(10);
    for (const QString& time : column(viewer->table(), 0))
        QVERIFY2(time.startsWith(today), qPrintable(time));
}

void KeyViewersTest::streamOfAnAuditTrail()
{
    const QByteArray audit = m_session->schema().userAuditKey("mallory");
    auto viewer = open(audit);
    QCOMPARE(viewer->type(), QByteArray("stream"));
    QVERIFY(viewer->table()->rowCount() >= 1);
    QCOMPARE(viewer->table()->horizontalHeaderItem(0)->text(), QStringLiteral("Entry id"));
    QVERIFY(column(viewer->table(), headerIndex(viewer->table(), QStringLiteral("reason")))
                .contains(QStringLiteral("spam wave")));

    // Bounded: a stream longer than the viewer's cap says it shows a part, newest first.
    for (int i = 0; i < ValueViewer::kMaxItems + 5; ++i)
        m_redis.command(
            {"XADD", "tg:{bulk}:audit", "*", "event", "note", "n", QByteArray::number(i)});
    auto bulk = open("tg:{bulk}:audit");
    QCOMPARE(bulk->table()->rowCount(), ValueViewer::kMaxItems);
    auto* summary = bulk->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY2(summary->text().contains(QStringLiteral("%1 entries").arg(ValueViewer::kMaxItems + 5)),
             qPrintable(summary->text()));
    QCOMPARE(bulk->table()->item(0, headerIndex(bulk->table(), QStringLiteral("n")))->text(),
             QString::number(ValueViewer::kMaxItems + 4));
}

void KeyViewersTest::wrongTypeIsFlagged()
{
    // A string where a user-wide ban (a hash) belongs.
    m_redis.command({"SET", "tg:{trudy}:ban", "1"});
    auto viewer = open("tg:{trudy}:ban");
    auto* flag = viewer->findChild<QLabel*>(QStringLiteral("wrongTypeLabel"));
    QVERIFY(flag->isVisibleTo(viewer.get()));
    QVERIFY2(flag->text().contains(QStringLiteral("this is a string")) &&
                 flag->text().contains(QStringLiteral("must be a hash")),
             qPrintable(flag->text()));
    auto* ttl = viewer->findChild<QLabel*>(QStringLiteral("ttlLabel"));
    QVERIFY(ttl->text().startsWith(QStringLiteral("No TTL")));
}

void KeyViewersTest::doubleClickAndContextMenu()
{
    KeysPage page(m_session.get());
    page.resize(1280, 800);
    QSignalSpy finished(&page, &KeysPage::scanFinished);
    page.show();
    QVERIFY(finished.wait(10000));
    const QByteArray banKey = m_session->schema().actionBanKey("mallory", "like");
    const int row = page.model()->rowOf(banKey);
    QVERIFY(row >= 0);
    auto* table = page.findChild<QTableView*>(QStringLiteral("keysTableView"));
    auto* actions = table->findChild<KeyActions*>();
    QVERIFY(actions);

    // The context menu: view, copy the key, copy the selected rows (as every table does),
    // open the user, delete (a write).
    std::unique_ptr<QMenu> menu(actions->menuFor(page.model()->index(row, 0)));
    QStringList names;
    for (QAction* action : menu->actions())
        if (!action->isSeparator())
            names << action->objectName();
    QCOMPARE(names,
             QStringList({QStringLiteral("viewValueAction"), QStringLiteral("copyKeyAction"),
                          QStringLiteral("copyRowsAction"),
                          QStringLiteral("copyRowsWithHeadersAction"),
                          QStringLiteral("openUserAction"), QStringLiteral("deleteKeyAction")}));
    QVERIFY(menu->findChild<QAction*>(QStringLiteral("openUserAction"))
                ->text()
                .contains(QStringLiteral("mallory")));
    menu->findChild<QAction*>(QStringLiteral("openUserAction"))->trigger();
    auto* user = table->findChild<UserDetailDialog*>();
    QVERIFY(user);
    QCOMPARE(user->user(), QByteArray("mallory"));
    user->close();

    // Double-click opens the value viewer of that row.
    table->scrollTo(page.model()->index(row, 0));
    const QPoint at = table->visualRect(page.model()->index(row, 0)).center();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
    ValueViewer* viewer = nullptr;
    QTRY_VERIFY((viewer = table->findChild<ValueViewer*>()) != nullptr);
    QCOMPARE(viewer->key(), banKey);
    viewer->close();
}

void KeyViewersTest::keysPageCountsDownAndFlagsWrongTypes()
{
    m_redis.command({"SET", "tg:{una}:like:fw:60000", "3", "PX", "60000"});
    m_redis.command({"SET", "tg:{una}:ban", "oops"}); // a string where a ban hash belongs
    KeysPage page(m_session.get());
    page.resize(1280, 800);
    QSignalSpy finished(&page, &KeysPage::scanFinished);
    page.show();
    QVERIFY(finished.wait(10000));
    KeysModel* model = page.model();
    const int counter = model->rowOf("tg:{una}:like:fw:60000");
    const int ban = model->rowOf("tg:{una}:ban");
    QVERIFY(counter >= 0 && ban >= 0);
    QTRY_VERIFY(model->row(counter).pttl > 0 && !model->row(ban).type.isEmpty());

    // The TTL moves without another request: repaints come from the page's countdown.
    const QModelIndex ttl = model->index(counter, KeysModel::TtlColumn);
    const QString before = ttl.data().toString();
    QVERIFY2(before.endsWith(QLatin1Char('s')), qPrintable(before));
    QSignalSpy repainted(model, &QAbstractItemModel::dataChanged);
    QTRY_VERIFY(ttl.data().toString() != before);
    auto covers = [&] {
        for (const QList<QVariant>& change : repainted) {
            const auto from = change.at(0).toModelIndex();
            const auto to = change.at(1).toModelIndex();
            if (from.row() <= counter && counter <= to.row() &&
                from.column() <= KeysModel::TtlColumn && KeysModel::TtlColumn <= to.column())
                return true;
        }
        return false;
    };
    QTRY_VERIFY(covers()); // the view is told, so what it shows moves too

    // The wrong type says what it should be, in the denied colour, with why in the tooltip.
    const QModelIndex type = model->index(ban, KeysModel::TypeColumn);
    QCOMPARE(type.data().toString(), QStringLiteral("string, should be hash"));
    QCOMPARE(type.data(Qt::ForegroundRole).value<QColor>(), toneColor(Tone::Denied));
    QVERIFY(type.data(Qt::ToolTipRole).toString().contains(QStringLiteral("fails")));
    const QModelIndex fine = model->index(counter, KeysModel::TypeColumn);
    QCOMPARE(fine.data().toString(), QStringLiteral("string"));
    QVERIFY(!fine.data(Qt::ForegroundRole).isValid());
}

QTEST_MAIN(KeyViewersTest)
#include "tst_KeyViewers.moc"
