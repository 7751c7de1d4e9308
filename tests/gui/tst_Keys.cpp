// Keys page against a real redis-server: background scan with details, the keys-without-TTL
// finder and its repair (Tollgate's keys, and another client's by a pattern), and Delete… that
// names the keys and deletes nothing when declined.

#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Repair.h"
#include "ui/common/Ask.h"
#include "ui/common/Session.h"
#include "ui/keys/KeyTemplate.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"
#include "ui/keys/NoTtlModel.h"
#include "ui/keys/NoTtlPanel.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::answerReasonPrompt;
using tollgate::test::RedisServer;

class KeysTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void displayEscapesBytes();
    void scanShowsKeysWithDetails();
    void findsAndRepairsKeysWithoutTtl();
    void noTtlFinderIsUncapped();
    void findsAndRepairsAnotherClientsKeysByPattern();
    void deleteAsksAndDeclinedDeletesNothing();
    void readOnlyProfileDisablesWrites();
    void templateParsesForeignKeys();
    void attachesForeignLayoutReadOnly();
    void screenshot();

private:
    KeysPage* openPage(bool readOnly = false);
    qint64 pttl(const QByteArray& key);
    void selectRow(QTableView* table, int row);

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<KeysPage> m_page;
    int m_answer = 0;
};

void KeysTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Ask::setHook([this](const Ask::Question&) { return m_answer; });
}

void KeysTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    Ask::clearAsked();
    m_answer = 0;
}

void KeysTest::cleanup()
{
    m_page.reset();
    m_session.reset();
}

KeysPage* KeysTest::openPage(bool readOnly)
{
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    settings.actor = QStringLiteral("tester");
    settings.readOnly = readOnly;
    settings.profileName = QStringLiteral("viewer");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    [&] { QTRY_VERIFY(m_session->state() == ConnectionState::Connected); }();
    m_page = std::make_unique<KeysPage>(m_session.get());
    m_page->resize(1280, 800);
    m_page->show();
    return m_page.get();
}

qint64 KeysTest::pttl(const QByteArray& key)
{
    const QByteArray reply = m_redis.command({"PTTL", key});
    return reply.startsWith(':') ? reply.mid(1).trimmed().toLongLong() : -100;
}

void KeysTest::selectRow(QTableView* table, int row)
{
    table->selectionModel()->select(table->model()->index(row, 0),
                                    QItemSelectionModel::ClearAndSelect |
                                        QItemSelectionModel::Rows);
}

void KeysTest::displayEscapesBytes()
{
    QCOMPARE(KeysModel::displayBytes("tg:{alice}:comment"), QStringLiteral("tg:{alice}:comment"));
    QCOMPARE(KeysModel::displayBytes("a\nb"), QStringLiteral("a\\x0ab"));
    QCOMPARE(KeysModel::displayBytes("back\\slash"), QStringLiteral("back\\\\slash"));
    QCOMPARE(KeysModel::displayBytes("bad\xff"), QStringLiteral("bad\\xff"));
    QCOMPARE(KeysModel::displayBytes("caf\xc3\xa9"), QStringLiteral("caf\u00e9"));
}

void KeysTest::scanShowsKeysWithDetails()
{
    m_redis.command({"SET", "tg:{alice}:comment:fw:30000", "3", "PX", "30000"});
    m_redis.command(
        {"HSET", "tg:policy:comment", "algorithm", "fixed_window", "windows", "30000:10"});
    m_redis.command({"SET", "tg:odd\nkey", QByteArray(100, 'x')});
    const QByteArray huge = "tg:" + QByteArray(1 << 20, 'k'); // a 1 MB key name
    m_redis.command({"SET", huge, "1"});
    m_redis.command({"SET", "other:not-ours", "1"});
    KeysPage* page = openPage();
    QAbstractItemModelTester tester(page->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy finished(page, &KeysPage::scanFinished);
    page->findChild<QPushButton*>(QStringLiteral("scanButton"))->click();
    QTRY_COMPARE(finished.size(), 1);
    KeysModel* model = page->model();
    QCOMPARE(model->rowCount(), 4); // the default pattern is the prefix
    // Kept whole, shown bounded: laid out whole, it would stall every repaint.
    const int hugeRow = model->rowOf(huge);
    QVERIFY(hugeRow >= 0);
    QCOMPARE(model->key(hugeRow), huge);
    const QString shown = model->data(model->index(hugeRow, KeysModel::KeyColumn)).toString();
    QVERIFY2(shown.size() < 300 && shown.startsWith(QStringLiteral("tg:kkk")) &&
                 shown.endsWith(QStringLiteral(" bytes)")),
             qPrintable(shown.right(40)));
    QTRY_VERIFY(!model->row(model->rowOf("tg:odd\nkey")).type.isEmpty());
    QTRY_VERIFY(!model->row(model->rowOf("tg:policy:comment")).type.isEmpty());
    QTRY_VERIFY(!model->row(model->rowOf("tg:{alice}:comment:fw:30000")).type.isEmpty());

    const int odd = model->rowOf("tg:odd\nkey");
    QCOMPARE(model->data(model->index(odd, KeysModel::KeyColumn)).toString(),
             QStringLiteral("tg:odd\\x0akey"));
    QCOMPARE(model->data(model->index(odd, KeysModel::TtlColumn)).toString(),
             QStringLiteral("no TTL"));
    QVERIFY(
        model->data(model->index(odd, KeysModel::ValueColumn)).toString().endsWith(QChar(0x2026)));
    const int hash = model->rowOf("tg:policy:comment");
    QCOMPARE(model->data(model->index(hash, KeysModel::TypeColumn)).toString(),
             QStringLiteral("hash"));
    QCOMPARE(model->data(model->index(hash, KeysModel::ValueColumn)).toString(),
             QStringLiteral("2 fields"));
    const int counter = model->rowOf("tg:{alice}:comment:fw:30000");
    QCOMPARE(model->row(counter).preview, QStringLiteral("3 of 10 counted")); // its policy's
    QCOMPARE(model->row(counter).raw, QStringLiteral("3"));
    QVERIFY(model->row(counter).pttl > 0);
}

void KeysTest::findsAndRepairsKeysWithoutTtl()
{
    // Counters written by a naive INCR without EXPIRE: they would never expire.
    m_redis.command({"SET", "tg:{alice}:comment:fw:30000", "5"});
    m_redis.command({"SET", "tg:{bob}:like:fw:10000", "2"});
    m_redis.command({"SET", "tg:{carol}:like:fw:10000", "1", "PX", "10000"});
    KeysPage* page = openPage();
    NoTtlPanel* panel = page->noTtlPanel();
    QAbstractItemModelTester tester(panel->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy finished(panel, &NoTtlPanel::finished);
    page->findChild<QPushButton*>(QStringLiteral("findNoTtlButton"))->click();
    QTRY_COMPARE(finished.size(), 1);
    NoTtlModel* model = panel->model();
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(pttl("tg:{alice}:comment:fw:30000"), qint64(-1)); // a dry run changes nothing

    int alice = model->item(0).key == "tg:{alice}:comment:fw:30000" ? 0 : 1;
    QCOMPARE(model->data(model->index(alice, NoTtlModel::UserColumn)).toString(),
             QStringLiteral("alice"));
    auto* table = page->findChild<QTableView*>(QStringLiteral("noTtlTableView"));
    selectRow(table, alice);
    auto* repairSelected = page->findChild<QPushButton*>(QStringLiteral("repairSelectedButton"));
    QCOMPARE(repairSelected->property("tollgateWrite").toInt(), int(Session::Write::RepairKey));
    QVERIFY(repairSelected->isEnabled());
    repairSelected->click();
    QVERIFY(answerReasonPrompt(page, QStringLiteral("naive client"))
                .contains(QStringLiteral("tg:{alice}:comment:fw:30000")));
    QTRY_COMPARE(finished.size(), 2);
    QVERIFY(pttl("tg:{alice}:comment:fw:30000") > 0);
    QVERIFY(pttl("tg:{alice}:comment:fw:30000") <= 30000);
    QCOMPARE(pttl("tg:{bob}:like:fw:10000"), qint64(-1));
    QCOMPARE(model->item(alice).status, QStringLiteral("fixed"));
    QVERIFY(page->findChild<QLabel*>(QStringLiteral("repairStatusLabel"))
                ->text()
                .contains(QStringLiteral("1 key")));

    page->findChild<QPushButton*>(QStringLiteral("repairAllButton"))->click();
    QVERIFY(!answerReasonPrompt(page, QStringLiteral("naive client")).isEmpty());
    QTRY_COMPARE(finished.size(), 3);
    QVERIFY(pttl("tg:{bob}:like:fw:10000") > 0);
    QCOMPARE(model->item(1 - alice).status, QStringLiteral("fixed"));
}

void KeysTest::noTtlFinderIsUncapped()
{
    // More keys without TTL than one SCAN batch and far more than the report keeps for its
    // audit entry (Repair::kMaxNamedKeys): every one streams into the table.
    constexpr int kKeys = 2500;
    QList<QList<QByteArray>> commands;
    for (int i = 0; i < kKeys; ++i)
        commands.append({"SET", "tg:{u" + QByteArray::number(i) + "}:like:fw:10000", "1"});
    QCOMPARE(m_redis.pipeline(commands, 30000).size(), kKeys);
    KeysPage* page = openPage();
    NoTtlPanel* panel = page->noTtlPanel();
    QAbstractItemModelTester tester(panel->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy finished(panel, &NoTtlPanel::finished);
    QSignalSpy inserted(panel->model(), &QAbstractItemModel::rowsInserted);
    page->findChild<QPushButton*>(QStringLiteral("findNoTtlButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(finished.size() == 1, 30000);
    QVERIFY(kKeys > Repair::kMaxNamedKeys);
    QCOMPARE(panel->model()->rowCount(), kKeys);
    QVERIFY2(inserted.size() > 1, "rows stream in batch by batch");
    QVERIFY(page->findChild<QLabel*>(QStringLiteral("repairStatusLabel"))
                ->text()
                .contains(QStringLiteral("2500 without TTL")));
}

void KeysTest::findsAndRepairsAnotherClientsKeysByPattern()
{
    // The two-command counter's keys: INCR answered, EXPIRE lost.
    for (const char* key : {"likes:{u1}:count", "likes:{u2}:count", "comments:{u1}:count"})
        m_redis.command({"SET", key, "3"});
    m_redis.command({"SET", "likes:{u3}:count", "1", "PX", "60000"});
    KeysPage* page = openPage();
    NoTtlPanel* panel = page->noTtlPanel();
    QSignalSpy finished(panel, &NoTtlPanel::finished);
    auto* pattern = page->findChild<QLineEdit*>(QStringLiteral("repairPatternEdit"));
    auto* ttl = page->findChild<QLineEdit*>(QStringLiteral("repairPatternTtlEdit"));
    auto* find = page->findChild<QPushButton*>(QStringLiteral("findPatternButton"));
    auto* give = page->findChild<QPushButton*>(QStringLiteral("repairPatternButton"));
    QVERIFY(pattern && ttl && find && give);
    QVERIFY(page->findChild<QSpinBox*>(QStringLiteral("repairPatternRateSpin"))->value() > 0);
    QVERIFY(!find->isEnabled()); // no pattern yet

    // Tollgate's own keys are refused here, with the reason in the status line.
    pattern->setText(QStringLiteral("tg:*"));
    find->click();
    QCOMPARE(finished.size(), 0);
    QVERIFY(page->findChild<QLabel*>(QStringLiteral("repairStatusLabel"))->text().contains(QStringLiteral("own")));

    pattern->setText(QStringLiteral("likes:*"));
    ttl->setText(QStringLiteral("2h"));
    find->click();
    QTRY_COMPARE(finished.size(), 1);
    NoTtlModel* model = panel->model();
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(pttl("likes:{u1}:count"), qint64(-1)); // a dry run changes nothing
    QVERIFY(!page->findChild<QPushButton*>(QStringLiteral("repairAllButton"))->isEnabled());

    QVERIFY(give->isEnabled());
    QCOMPARE(give->property("tollgateWrite").toInt(), int(Session::Write::RepairKey));
    give->click();
    QVERIFY(answerReasonPrompt(page, QStringLiteral("old like counter")).contains(QStringLiteral("likes:*")));
    QTRY_COMPARE(finished.size(), 2);
    for (const QByteArray& key : {QByteArray("likes:{u1}:count"), QByteArray("likes:{u2}:count")}) {
        QVERIFY2(pttl(key) > 7'000'000 && pttl(key) <= 7'200'000, key.constData());
        const int row = model->item(0).key == key ? 0 : 1;
        QCOMPARE(model->item(row).status, QStringLiteral("fixed"));
    }
    QCOMPARE(pttl("comments:{u1}:count"), qint64(-1));
    QVERIFY(pttl("likes:{u3}:count") <= 60000);
    // Audited in the global stream, in the script that set the TTLs.
    const QByteArray audit = m_redis.command({"XREVRANGE", "tg:audit", "+", "-", "COUNT", "1"});
    QVERIFY2(audit.contains("old like counter") && audit.contains("pattern likes:*"), audit.constData());
}

void KeysTest::deleteAsksAndDeclinedDeletesNothing()
{
    m_redis.command({"SET", "tg:{alice}:comment:fw:30000", "5"});
    m_redis.command({"SET", "tg:{bob}:comment:fw:30000", "5"});
    KeysPage* page = openPage();
    QSignalSpy finished(page, &KeysPage::scanFinished);
    page->startScan();
    QTRY_COMPARE(finished.size(), 1);
    auto* table = page->findChild<QTableView*>(QStringLiteral("keysTableView"));
    const int alice = page->model()->rowOf("tg:{alice}:comment:fw:30000");
    selectRow(table, alice);
    auto* remove = page->findChild<QPushButton*>(QStringLiteral("deleteButton"));
    QCOMPARE(remove->property("tollgateWrite").toInt(), int(Session::Write::DeleteKey));
    QVERIFY(remove->isEnabled());

    remove->click();
    const QString question = answerReasonPrompt(page, {}); // Cancel
    QVERIFY2(question.contains(QStringLiteral("tg:{alice}:comment:fw:30000")),
             qPrintable(question));
    QVERIFY2(!question.contains(QStringLiteral("bob")), qPrintable(question));
    QTest::qWait(200);
    QCOMPARE(m_redis.command({"EXISTS", "tg:{alice}:comment:fw:30000"}), QByteArray(":1\r\n"));
    QCOMPARE(page->model()->rowCount(), 2);

    remove->click();
    QVERIFY(!answerReasonPrompt(page, QStringLiteral("stale counter")).isEmpty());
    QTRY_COMPARE(m_redis.command({"EXISTS", "tg:{alice}:comment:fw:30000"}), QByteArray(":0\r\n"));
    QCOMPARE(m_redis.command({"EXISTS", "tg:{bob}:comment:fw:30000"}), QByteArray(":1\r\n"));
    QTRY_COMPARE(page->model()->rowCount(), 1);
}

void KeysTest::readOnlyProfileDisablesWrites()
{
    m_redis.command({"SET", "tg:{alice}:comment:fw:30000", "5"});
    KeysPage* page = openPage(true);
    QSignalSpy finished(page->noTtlPanel(), &NoTtlPanel::finished);
    page->noTtlPanel()->find();
    QTRY_COMPARE(finished.size(), 1);
    selectRow(page->findChild<QTableView*>(QStringLiteral("noTtlTableView")), 0);
    for (const char* name : {"repairSelectedButton", "repairAllButton", "deleteButton"}) {
        auto* button = page->findChild<QPushButton*>(QLatin1String(name));
        QVERIFY2(!button->isEnabled(), name);
    }
    QVERIFY(page->findChild<QPushButton*>(QStringLiteral("repairAllButton"))
                ->toolTip()
                .contains(QStringLiteral("read-only")));
}

void KeysTest::templateParsesForeignKeys()
{
    auto layout = KeyTemplate::parse(QStringLiteral("act:limit:{action}:{user}"));
    QVERIFY(layout);
    QCOMPARE(layout->glob(), QByteArray("act:limit:*:*"));
    QCOMPARE(layout->field("act:limit:comment:alice", QStringLiteral("user")),
             QStringLiteral("alice"));
    QCOMPARE(layout->field("act:limit:comment:alice", QStringLiteral("action")),
             QStringLiteral("comment"));
    QCOMPARE(layout->field("other:comment:alice", QStringLiteral("user")), QString());
    auto glob = KeyTemplate::parse(QStringLiteral("a*b:{user}"));
    QVERIFY(glob);
    QCOMPARE(glob->glob(), QByteArray("a\\*b:*"));
    QVERIFY(!KeyTemplate::parse(QStringLiteral("no placeholders")));
}

void KeysTest::attachesForeignLayoutReadOnly()
{
    m_redis.command({"SET", "act:limit:comment:alice", "3", "EX", "60"});
    m_redis.command({"SET", "act:limit:like:bob", "7"});
    m_redis.command({"SET", "tg:{alice}:comment:fw:30000", "1"});
    KeysPage* page = openPage();
    page->findChild<QLineEdit*>(QStringLiteral("templateLineEdit"))
        ->setText(QStringLiteral("act:limit:{action}:{user}"));
    QSignalSpy finished(page, &KeysPage::scanFinished);
    page->startScan();
    QTRY_COMPARE(finished.size(), 1);
    KeysModel* model = page->model();
    QCOMPARE(model->rowCount(), 2);
    const int alice = model->rowOf("act:limit:comment:alice");
    QCOMPARE(model->data(model->index(alice, KeysModel::UserColumn)).toString(),
             QStringLiteral("alice"));
    QCOMPARE(model->data(model->index(alice, KeysModel::ActionColumn)).toString(),
             QStringLiteral("comment"));
    QTRY_VERIFY(model->row(alice).pttl > 0);
    selectRow(page->findChild<QTableView*>(QStringLiteral("keysTableView")), alice);
    auto* remove = page->findChild<QPushButton*>(QStringLiteral("deleteButton"));
    QVERIFY(!remove->isEnabled());
    QVERIFY(remove->toolTip().contains(QStringLiteral("read-only")));
    page->deleteSelected();
    QCOMPARE(Ask::asked().size(), 0);
    QVERIFY(!tollgate::test::openReasonPrompt(page));
    QCOMPARE(m_redis.command({"EXISTS", "act:limit:comment:alice"}), QByteArray(":1\r\n"));
}

void KeysTest::screenshot()
{
    QList<QList<QByteArray>> commands;
    for (int i = 0; i < 40; ++i) {
        const QByteArray user = "user-" + QByteArray::number(i);
        commands.append({"SET", "tg:{" + user + "}:comment:fw:30000", QByteArray::number(i % 11),
                         "PX", "30000"});
        commands.append(
            {"HSET", "tg:{" + user + "}:like:sw:10000", "start", "0", "cur", "2", "prev", "1"});
    }
    commands.append({"SET", "tg:{mallory}:upload:fw:86400000", "100"});
    commands.append({"HSET", "tg:{mallory}:ban", "reason", "spam", "until_ms", "0"});
    commands.append({"XADD", "tg:audit", "*", "event", "ban", "user", "mallory"});
    m_redis.pipeline(commands);
    KeysPage* page = openPage();
    QSignalSpy scanned(page, &KeysPage::scanFinished);
    QSignalSpy found(page->noTtlPanel(), &NoTtlPanel::finished);
    page->startScan();
    page->noTtlPanel()->find();
    QTRY_COMPARE(scanned.size(), 1);
    QTRY_COMPARE(found.size(), 1);
    QTest::qWait(300);
    QVERIFY(page->grab().save(QStringLiteral("/tmp/tollgate-keys.png")));
}

QTEST_MAIN(KeysTest)
#include "tst_Keys.moc"
