// What the console remembers between runs (ui/shell/ViewMemory.h), in a settings file of the
// test's own: the window's size, the page, a column width set by hand, and the palette chosen
// in View › Palette, which also applies at once.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/audit/AuditModel.h"
#include "ui/common/Palette.h"
#include "ui/common/PaletteChoice.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionBanner.h"
#include "ui/connection/ProfileStore.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewMemory.h"

#include <QAction>
#include <QHeaderView>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class ViewMemoryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sizePageAndColumnComeBack();
    void paletteSwitchesLiveAndComesBack();
    void nothingIsKeptWithoutMemory();

private:
    /// A connected window remembering in the test's settings file (`remember` false: none).
    std::unique_ptr<MainWindow> openWindow(bool remember = true);
    std::unique_ptr<QSettings> settings() const;
    QTableView* auditView(MainWindow& window) const;

    RedisServer m_redis;
    QTemporaryDir m_dir;
    std::unique_ptr<ProfileStore> m_profiles;
};

void ViewMemoryTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_profiles = std::make_unique<ProfileStore>(std::make_unique<QSettings>(
        m_dir.filePath(QStringLiteral("profiles.ini")), QSettings::IniFormat));
}

std::unique_ptr<QSettings> ViewMemoryTest::settings() const
{
    return std::make_unique<QSettings>(m_dir.filePath(QStringLiteral("view.ini")),
                                       QSettings::IniFormat);
}

std::unique_ptr<MainWindow> ViewMemoryTest::openWindow(bool remember)
{
    auto window = std::make_unique<MainWindow>(m_profiles.get());
    if (remember)
        new ViewMemory(window.get(), settings());
    Session::Settings s;
    s.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    s.actor = QStringLiteral("tester");
    window->setSession(std::make_unique<Session>(s));
    window->show();
    return window;
}

QTableView* ViewMemoryTest::auditView(MainWindow& window) const
{
    return window.findChild<QTableView*>(QStringLiteral("auditTableView"));
}

void ViewMemoryTest::sizePageAndColumnComeBack()
{
    int width = 0;
    QSize size;
    {
        auto window = openWindow();
        // Within the offscreen platform's 800x600 screen: a restored window is kept on screen.
        const QSize opened = window->size();
        window->resize(opened - QSize(60, 40));
        size = window->size();
        QVERIFY(size != opened);
        window->showPage(QStringLiteral("audit"));
        QTableView* view = auditView(*window);
        QTRY_VERIFY(view->isVisible());
        // Drag the right edge of the User column 60 px to the right, as a person would.
        QHeaderView* header = view->horizontalHeader();
        width = header->sectionSize(AuditModel::User) + 60;
        const int edge = header->sectionViewportPosition(AuditModel::User) +
                         header->sectionSize(AuditModel::User) - 1;
        const int y = header->height() / 2;
        QTest::mousePress(header->viewport(), Qt::LeftButton, {}, QPoint(edge, y));
        QTest::mouseMove(header->viewport(), QPoint(edge + 30, y));
        QTest::mouseMove(header->viewport(), QPoint(edge + 60, y));
        QTest::mouseRelease(header->viewport(), Qt::LeftButton, {}, QPoint(edge + 60, y));
        QCOMPARE(header->sectionSize(AuditModel::User), width);
        window->close();
    }
    auto window = openWindow();
    QCOMPARE(window->size(), size);
    QCOMPARE(window->currentPageKey(), QStringLiteral("audit"));
    QTableView* view = auditView(*window);
    QTRY_VERIFY(view->isVisible());
    QCOMPARE(view->horizontalHeader()->sectionSize(AuditModel::User), width);
    // Widths the page sets itself are not taken for a person's.
    QVERIFY(!settings()->allKeys().join(u' ').contains(QStringLiteral("keysTableView")));
}

void ViewMemoryTest::paletteSwitchesLiveAndComesBack()
{
    {
        auto window = openWindow();
        QTRY_COMPARE_WITH_TIMEOUT(window->banner()->look(), ConnectionBanner::Look::Connected,
                                  10'000);
        auto* dark = window->findChild<QAction*>(QStringLiteral("darkPaletteAction"));
        QVERIFY(dark);
        dark->trigger();
        QVERIFY(isDarkPalette(QApplication::palette()));
        QTRY_VERIFY(isDarkPalette(window->palette())); // live, on the open window
        // The banner's own colours too (it paints them through a style sheet).
        QTRY_VERIFY2(window->banner()->styleSheet().contains(QStringLiteral("#1b3a26")),
                     qPrintable(window->banner()->styleSheet()));
        window->close();
    }
    applyPaletteChoice(PaletteChoice::Light);
    QVERIFY(!isDarkPalette(QApplication::palette()));
    auto window = openWindow();
    QVERIFY(isDarkPalette(QApplication::palette()));
    QCOMPARE(currentPaletteChoice(), PaletteChoice::Dark);
    window->findChild<QAction*>(QStringLiteral("systemPaletteAction"))->trigger();
    QCOMPARE(currentPaletteChoice(), PaletteChoice::System);
    QVERIFY(!isDarkPalette(QApplication::palette()));
    window->close();
    QCOMPARE(settings()->value(QStringLiteral("view/palette")).toString(),
             QStringLiteral("system"));
}

void ViewMemoryTest::nothingIsKeptWithoutMemory()
{
    // Tests and the screenshot tour make windows without one: their sizes are their own.
    const QStringList before = settings()->allKeys();
    auto window = openWindow(false);
    const QSize opened = window->size();
    window->resize(opened - QSize(30, 20));
    window->showPage(QStringLiteral("keys"));
    window->close();
    QCOMPARE(settings()->allKeys(), before);
    auto again = openWindow(false);
    QCOMPARE(again->size(), opened);
    QCOMPARE(again->currentPageKey(), QStringLiteral("dashboard"));
}

QTEST_MAIN(ViewMemoryTest)
#include "tst_ViewMemory.moc"
