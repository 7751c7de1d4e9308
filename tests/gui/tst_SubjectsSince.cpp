// The Subjects page's "since", rate and shadow figures against a real redis-server, all from what
// the rows and the joined policies already hold (no read per row): a banned user's Since is the
// ban hash's creation time; a denied user's is the console's own first denied read, labelled as
// such, with the hits counted per minute since the window began; a user hitting at a known pace
// shows a rate bracketed by the test's own clock; a shadow policy's rows are marked, never read
// as denied, and filtered, until the policy is enforced. QAbstractItemModelTester throughout.
#include "tests/gui/SubjectsPageFixture.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Session.h"
#include "ui/subjects/SubjectFigures.h"
#include "ui/subjects/SubjectsLoader.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QFont>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTimer>
#include <QtTest>
#include <memory>

using namespace tollgate;
using namespace tollgate::ui;

class tst_SubjectsSince : public test::SubjectsPageFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void bannedSinceIsTheBansCreation();
    void deniedUserFigures();
    void rateAtAKnownPace();
    void shadowRowsMarkedAndFiltered();
    void emptiedWindowOnScreenReadAgain();

private:
    using SubjectsPageFixture::savePolicy;
    void savePolicy(const QByteArray& action, qint64 limit, bool shadow);
    void savePolicy(const QByteArray& action, std::vector<WindowLimit> windows, bool shadow);
    void filterBy(SubjectFilter::State state);
    QSet<SubjectKey> shownKeys() const;
};

void tst_SubjectsSince::initTestCase()
{
    startServer(QStringLiteral("ops-olga"));
    savePolicy("login", 5, false);
    savePolicy("post", 3, false);
    savePolicy("feed", 1000, false);
    savePolicy("vote", 2, true);
    for (int i = 0; i < 20; ++i)
        hit("user-" + QByteArray::number(i), i % 2 ? "login" : "vote", 1);

    showPage(1024, 700);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->loader()->firstPassDone(), 10'000);
}

void tst_SubjectsSince::cleanupTestCase()
{
    stopFixture();
}

void tst_SubjectsSince::savePolicy(const QByteArray& action, qint64 limit, bool shadow)
{
    savePolicy(action, {{limit, 60'000}}, shadow);
}

void tst_SubjectsSince::savePolicy(const QByteArray& action, std::vector<WindowLimit> windows,
                                   bool shadow)
{
    Policy policy = m_policies.count(action) ? m_policies.at(action) : Policy();
    policy.action = action;
    policy.windows = std::move(windows);
    policy.shadow = shadow;
    savePolicy(policy);
}

void tst_SubjectsSince::filterBy(SubjectFilter::State state)
{
    auto* combo = m_page->findChild<QComboBox*>(QStringLiteral("stateComboBox"));
    QVERIFY(combo);
    const int index = combo->findData(int(state));
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    QTRY_VERIFY(m_page->model()->filter().state == state && m_page->model()->isIdle());
}

QSet<SubjectKey> tst_SubjectsSince::shownKeys() const
{
    QSet<SubjectKey> keys;
    for (int row = 0; row < m_page->model()->rowCount(); ++row)
        keys << m_page->model()->keyAt(row);
    return keys;
}

void tst_SubjectsSince::bannedSinceIsTheBansCreation()
{
    hit("mallory", "login", 1);
    BanRequest request;
    request.user = "mallory";
    request.action = "login";
    request.actor = QStringLiteral("ops-olga");
    request.reason = QStringLiteral("credential stuffing");
    request.durationMs = 3'600'000;
    std::optional<Result<BanInfo>> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r; });
    QTRY_VERIFY(banned.has_value() && banned->ok());
    // The ban's creation as Redis keeps it, read back from its hash.
    std::optional<Result<std::vector<BanInfo>>> stored;
    m_session->moderation().bans("mallory", this,
                                 [&](Result<std::vector<BanInfo>> r) { stored = r; });
    QTRY_VERIFY(stored.has_value() && stored->ok() && stored->value().size() == 1);
    const qint64 created = stored->value().front().createdMs;
    QVERIFY(created > 0);

    QTRY_VERIFY_WITH_TIMEOUT(
        cell("mallory", "login", SubjectsModel::Ban, SubjectsModel::BannedRole).toBool(), 10'000);
    QCOMPARE(cell("mallory", "login", SubjectsModel::Since, SubjectsModel::SortRole).toLongLong(),
             created);
    QCOMPARE(cell("mallory", "login", SubjectsModel::Since).toString(), shortTime(created));
    const QString tip = cell("mallory", "login", SubjectsModel::Since, Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(formatTime(created)) && tip.contains(QStringLiteral("ban was created")),
             qPrintable(tip));
    // Nothing is counted while a ban is in force: the rate's tooltip says so.
    QVERIFY(cell("mallory", "login", SubjectsModel::Rate, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("while a ban is in force")));
    // The header says what the column's two kinds of time are.
    const QString header = m_page->model()
                               ->headerData(SubjectsModel::Since, Qt::Horizontal, Qt::ToolTipRole)
                               .toString();
    QVERIFY(header.contains(QStringLiteral("ban was created")) &&
            header.contains(QStringLiteral("console's reads")));
}

void tst_SubjectsSince::deniedUserFigures()
{
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    hit("dave", "post", 5); // 3 counted, the next ones denied (count_denied off)
    QTRY_VERIFY_WITH_TIMEOUT(
        cell("dave", "post", SubjectsModel::Count, SubjectsModel::TierRole).toInt() ==
            int(Tier::Deny),
        10'000);
    const qint64 seenBy = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(cell("dave", "post", SubjectsModel::Count).toString(), QStringLiteral("3 / 3"));
    // Seen by this console: at or after the hits (to the second it is kept in), and labelled so.
    const qint64 since =
        cell("dave", "post", SubjectsModel::Since, SubjectsModel::SortRole).toLongLong();
    QVERIFY2(since >= before - 1'000 && since <= seenBy,
             qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(since).arg(before).arg(seenBy)));
    QVERIFY(
        cell("dave", "post", SubjectsModel::Since).toString().startsWith(QStringLiteral("seen ")));
    QVERIFY(cell("dave", "post", SubjectsModel::Since, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("seen by this console")));
    // 3 hits counted in a window of 60 s begun at least a second ago: at most 180 a minute, and
    // at least 3 (the window is at most 60 s old).
    QTRY_VERIFY_WITH_TIMEOUT(
        cell("dave", "post", SubjectsModel::Rate).toString() != QStringLiteral("\u2014"), 10'000);
    const double rate = QLocale().toDouble(cell("dave", "post", SubjectsModel::Rate).toString());
    QVERIFY2(rate >= 3 && rate <= 180, qPrintable(QString::number(rate)));
    QVERIFY(cell("dave", "post", SubjectsModel::Rate, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("since the window began")));
    // Rows not denied have no since.
    QCOMPARE(cell("user-1", "login", SubjectsModel::Since).toString(), QStringLiteral("\u2014"));
    filterBy(SubjectFilter::State::Denied);
    QVERIFY(shownKeys().contains(SubjectKey("dave", "post")));
    filterBy(SubjectFilter::State::Any);
}

void tst_SubjectsSince::rateAtAKnownPace()
{
    // 12 hits, one every 150 ms: about 400 a minute when on time, slower when the machine is.
    constexpr int kHits = 12;
    const qint64 firstSent = QDeadlineTimer::current().deadline();
    int sent = 0, answered = 0;
    QTimer pace;
    pace.setInterval(150);
    connect(&pace, &QTimer::timeout, this, [&] {
        if (sent == kHits)
            return pace.stop();
        ++sent;
        m_session->limiter().hit(m_policies.at("feed"), "erin", 0, this,
                                 [&answered](Result<HitResult>) { ++answered; });
    });
    pace.start();
    QTRY_COMPARE_WITH_TIMEOUT(answered, kHits, 20'000);
    const QString all = QStringLiteral("%1 / 1000").arg(kHits);
    QTRY_VERIFY_WITH_TIMEOUT(cell("erin", "feed", SubjectsModel::Count).toString() == all &&
                                 cell("erin", "feed", SubjectsModel::Rate).toString() !=
                                     QStringLiteral("\u2014"),
                             10'000);
    // The window began at the first hit, after `firstSent`; the figure is read between `from`
    // and `to`, and is the count over the time since the window's start (its deadline less
    // its length): both brackets hold however the hits and the reads were scheduled.
    const qint64 deadline =
        cell("erin", "feed", SubjectsModel::Ttl, SubjectsModel::SortRole).toLongLong();
    const qint64 from = QDeadlineTimer::current().deadline();
    const QString text = cell("erin", "feed", SubjectsModel::Rate).toString();
    const qint64 to = QDeadlineTimer::current().deadline();
    const double rate = QLocale().toDouble(text);
    const qint64 start = deadline - 60'000;
    QVERIFY2(start >= firstSent, qPrintable(QStringLiteral("%1 < %2").arg(start).arg(firstSent)));
    const double lowest = kHits * 60'000.0 / double(to - start);
    const double highest = kHits * 60'000.0 / double(qMax<qint64>(1'000, from - start));
    QVERIFY2(rate >= lowest - 0.05 && rate <= highest + 0.05,
             qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(rate).arg(lowest).arg(highest)));
    QVERIFY(rate >= kHits * 60'000.0 / double(to - firstSent) - 0.05);
}

void tst_SubjectsSince::shadowRowsMarkedAndFiltered()
{
    hit("sybil", "vote", 4); // over the shadow limit of 2: allowed, but enforcing would deny
    SubjectsModel* model = m_page->model();
    QTRY_VERIFY_WITH_TIMEOUT(
        cell("sybil", "vote", SubjectsModel::Count, SubjectsModel::TierRole).toInt() ==
            int(Tier::Deny),
        10'000);
    QTRY_COMPARE(cell("sybil", "vote", SubjectsModel::Ban).toString(),
                 QStringLiteral("shadow: would deny"));
    QCOMPARE(cell("user-0", "vote", SubjectsModel::Ban).toString(), QStringLiteral("shadow"));
    QVERIFY(cell("sybil", "vote", SubjectsModel::Count, SubjectsModel::ShadowRole).toBool());
    QVERIFY(cell("sybil", "vote", SubjectsModel::Count, Qt::FontRole).value<QFont>().italic());
    QVERIFY(cell("sybil", "vote", SubjectsModel::Ban, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("denies nobody")));
    QVERIFY(cell("sybil", "vote", SubjectsModel::Since, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("shadow policy")));
    QVERIFY(!cell("user-1", "login", SubjectsModel::Count, SubjectsModel::ShadowRole).toBool());
    QCOMPARE(cell("user-1", "login", SubjectsModel::Ban).toString(), QString());
    // Not denied: the summary counts it apart, the Denied filter leaves it out.
    auto* summary = m_page->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QTRY_VERIFY2(summary->text().contains(QStringLiteral("1 would be denied (shadow)")),
                 qPrintable(summary->text()));
    filterBy(SubjectFilter::State::Denied);
    QVERIFY(!shownKeys().contains(SubjectKey("sybil", "vote")));
    filterBy(SubjectFilter::State::WouldDeny);
    QCOMPARE(shownKeys(), QSet<SubjectKey>{SubjectKey("sybil", "vote")});
    filterBy(SubjectFilter::State::Shadow);
    QCOMPARE(model->rowCount(), 11); // user-0, -2, ..., -18 and sybil
    for (const SubjectKey& key : shownKeys())
        QCOMPARE(key.second, QByteArray("vote"));

    // Enforced now: the policy event brings the listing, the marks go, the row is denied.
    savePolicy("vote", 2, false);
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 0, 10'000);
    filterBy(SubjectFilter::State::Denied);
    QTRY_VERIFY(shownKeys().contains(SubjectKey("sybil", "vote")));
    QCOMPARE(cell("sybil", "vote", SubjectsModel::Ban).toString(), QString());
    QVERIFY(!cell("sybil", "vote", SubjectsModel::Count, SubjectsModel::ShadowRole).toBool());
    QTRY_VERIFY(!summary->text().contains(QStringLiteral("shadow")));
    filterBy(SubjectFilter::State::Any);
}

void tst_SubjectsSince::emptiedWindowOnScreenReadAgain()
{
    // 5 hits fill the 6 s window (5 / 5, the binding one) and leave the hour at 5 / 8. Once the
    // short window empties, the hour binds: 5 / 8. Its row is on screen, and the periodic
    // re-read of the rows on screen and the background sweep are held off, so only the re-read
    // an emptied window triggers can show it; without it the row would say 0 / 5 until the
    // next periodic read.
    savePolicy("search", {{5, 6'000}, {8, 3'600'000}}, false);
    auto* periodic = m_page->findChild<QTimer*>(QStringLiteral("visibleRereadTimer"));
    QVERIFY(periodic);
    const int interval = periodic->interval();
    auto* filter = m_page->findChild<QLineEdit*>(QStringLiteral("filterLineEdit"));
    QVERIFY(filter);
    filter->setText(QStringLiteral("quinn"));
    hit("quinn", "search", 5);
    QTRY_COMPARE_WITH_TIMEOUT(cell("quinn", "search", SubjectsModel::Count).toString(),
                              QStringLiteral("5 / 5"), 10'000);
    QCOMPARE(m_page->model()->rowCount(), 1); // on screen
    periodic->setInterval(24 * 3'600'000); // (restarts it)
    m_page->loader()->setSweeping(false);
    QTRY_COMPARE_WITH_TIMEOUT(cell("quinn", "search", SubjectsModel::Count).toString(),
                              QStringLiteral("5 / 8"), 15'000);
    QCOMPARE(cell("quinn", "search", SubjectsModel::Remaining).toLongLong(), 3);
    periodic->setInterval(interval);
    m_page->loader()->setSweeping(true);
    filter->clear();
    QTRY_VERIFY(m_page->model()->filter().text.isEmpty() && m_page->model()->isIdle());
}

QTEST_MAIN(tst_SubjectsSince)
#include "tst_SubjectsSince.moc"
