// Lua page against a real redis-server: the library's scripts with their SHA1 and server state,
// and running hit from the form.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Ask.h"
#include "ui/common/Session.h"
#include "ui/lua/LuaPage.h"
#include "ui/lua/ScriptsModel.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class LuaPageTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void listsLibraryScripts();
    void runsHitFromTheForm();
    void showsErrorsWithTheirKind();
    void readOnlyScriptRunsWithoutAsking();
    void writeWithoutKeysSaysSo();
    void screenshot();

private:
    LuaPage* openPage();
    // The form field named `name`. Fields come from the script header's KEYS/ARGV lines, so a
    // header edit can remove one: stop with its name rather than crash on a null pointer.
    template <typename T> T* field(const char* name)
    {
        auto* widget = m_page->findChild<T*>(QLatin1String(name));
        if (!widget)
            qFatal("tst_LuaPage: the form has no field %s (did a script header change?)", name);
        return widget;
    }

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<LuaPage> m_page;
    int m_answer = 1; // what the confirmation hook answers
};

void LuaPageTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
}

void LuaPageTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    QCOMPARE(m_redis.command({"SCRIPT", "FLUSH"}), QByteArray("+OK\r\n"));
    Ask::clearAsked();
    Ask::setHook([this](const Ask::Question&) { return m_answer; });
    m_answer = 1;
}

void LuaPageTest::cleanup()
{
    Ask::setHook({});
    m_page.reset();
    m_session.reset();
}

LuaPage* LuaPageTest::openPage()
{
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    settings.actor = QStringLiteral("tester");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    [&] { QTRY_VERIFY(m_session->state() == ConnectionState::Connected); }();
    m_page = std::make_unique<LuaPage>(m_session.get());
    m_page->resize(1280, 800);
    m_page->show();
    return m_page.get();
}

void LuaPageTest::listsLibraryScripts()
{
    LuaPage* page = openPage();
    ScriptsModel* model = page->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto& scripts = ScriptLibrary::instance().scripts();
    QVERIFY(scripts.size() >= 8);
    QCOMPARE(model->rowCount(), int(scripts.size()));
    for (int i = 0; i < scripts.size(); ++i) {
        QCOMPARE(model->data(model->index(i, ScriptsModel::NameColumn)).toString(),
                 scripts[i].name);
        QCOMPARE(model->data(model->index(i, ScriptsModel::Sha1Column)).toString().toLatin1(),
                 scripts[i].sha1);
    }
    const int hit = [&] {
        for (int i = 0; i < scripts.size(); ++i)
            if (scripts[i].name == QStringLiteral("hit"))
                return i;
        return -1;
    }();
    QVERIFY(hit >= 0);
    // After SCRIPT FLUSH nothing is loaded; SCRIPT LOAD behind the page's back, then refresh.
    QTRY_COMPARE(model->data(model->index(hit, ScriptsModel::LoadedColumn)).toString(),
                 QStringLiteral("not loaded"));
    m_redis.command({"SCRIPT", "LOAD", scripts[hit].source});
    page->refreshLoaded();
    QTRY_COMPARE(model->data(model->index(hit, ScriptsModel::LoadedColumn)).toString(),
                 QStringLiteral("loaded"));
}

void LuaPageTest::runsHitFromTheForm()
{
    LuaPage* page = openPage();
    page->selectScript(QStringLiteral("hit"));
    QVERIFY(field<QPlainTextEdit>("headerPlainTextEdit")
                ->toPlainText()
                .contains(QStringLiteral("KEYS[1]")));
    field<QLineEdit>("keys1LineEdit")->setText(QStringLiteral("tg:{alice}:ban"));
    field<QLineEdit>("keys2LineEdit")->setText(QStringLiteral("tg:{alice}:comment:ban"));
    field<QLineEdit>("keys3LineEdit")->setText(QStringLiteral("tg:{alice}:overrides"));
    field<QLineEdit>("keys4LineEdit")->setText(QStringLiteral("tg:{alice}:audit"));
    field<QLineEdit>("keys5LineEdit")->setText(QStringLiteral("tg:audit"));
    field<QPlainTextEdit>("keys6PlainTextEdit")
        ->setPlainText(QStringLiteral("tg:{alice}:comment:fw:30000\n"));
    const QStringList args{QStringLiteral("hit"),
                           QStringLiteral("fixed_window"),
                           QStringLiteral("1"),
                           QStringLiteral("0"),
                           QStringLiteral("0"),
                           QStringLiteral("0"),
                           QString(),
                           QStringLiteral("0"),
                           QStringLiteral("alice"),
                           QStringLiteral("comment"),
                           QString(),
                           QStringLiteral("first_hit")};
    for (int i = 0; i < args.size(); ++i)
        field<QLineEdit>(qPrintable(QStringLiteral("argv%1LineEdit").arg(i + 1)))->setText(args[i]);
    field<QPlainTextEdit>("argv13PlainTextEdit")->setPlainText(QStringLiteral("10\n30000"));

    auto* run = field<QPushButton>("runButton");
    QCOMPARE(run->property("tollgateWrite").toInt(), int(Session::Write::RunScript));
    QTRY_VERIFY(run->isEnabled()); // once the server said what this user may run
    QSignalSpy shown(page, &LuaPage::replyShown);
    run->click();
    QTRY_COMPARE(shown.size(), 1);
    // A hit writes: the page asked first, naming the key.
    QCOMPARE(Ask::asked().size(), 1);
    QVERIFY(Ask::asked().first().text.contains(QStringLiteral("tg:{alice}:comment:fw:30000")));
    const QString reply = field<QPlainTextEdit>("replyPlainTextEdit")->toPlainText();
    QVERIFY2(reply.contains(QStringLiteral("ok")), qPrintable(reply));
    QVERIFY2(reply.contains(QStringLiteral("10")), qPrintable(reply));
    QCOMPARE(m_redis.command({"GET", "tg:{alice}:comment:fw:30000"}), QByteArray("$1\r\n1\r\n"));
    QVERIFY(page->findChild<QPlainTextEdit*>(QStringLiteral("replyPlainTextEdit")));
}

void LuaPageTest::showsErrorsWithTheirKind()
{
    LuaPage* page = openPage();
    page->selectScript(QStringLiteral("ban"));
    field<QLineEdit>("keys1LineEdit")->setText(QStringLiteral("tg:{bob}:ban"));
    field<QLineEdit>("keys2LineEdit")->setText(QStringLiteral("tg:{bob}:audit"));
    // The actor is the operator, filled in and locked; the reason is left empty, so the
    // script refuses with TG_INVALID.
    auto* actor = field<QLineEdit>("argv3LineEdit");
    QCOMPARE(actor->text(), QStringLiteral("tester"));
    QVERIFY(actor->isReadOnly());
    QSignalSpy shown(page, &LuaPage::replyShown);
    page->run();
    QTRY_COMPARE(shown.size(), 1);
    const QString reply = field<QPlainTextEdit>("replyPlainTextEdit")->toPlainText();
    QVERIFY2(reply.startsWith(QStringLiteral("Error (")), qPrintable(reply));
    QVERIFY2(reply.contains(QStringLiteral("reason is required")), qPrintable(reply));
    QCOMPARE(m_redis.command({"EXISTS", "tg:{bob}:ban"}), QByteArray(":0\r\n"));

    // Declining the confirmation runs nothing at all.
    m_answer = 0;
    field<QLineEdit>("argv4LineEdit")->setText(QStringLiteral("spam"));
    page->run();
    QTest::qWait(200);
    QCOMPARE(shown.size(), 1);
    QCOMPARE(m_redis.command({"EXISTS", "tg:{bob}:ban"}), QByteArray(":0\r\n"));
}

void LuaPageTest::readOnlyScriptRunsWithoutAsking()
{
    // can.lua declares no-writes: nothing to confirm, and it runs with EVALSHA_RO.
    LuaPage* page = openPage();
    page->selectScript(QStringLiteral("can"));
    m_answer = 0; // were it asked, it would not run
    QSignalSpy shown(page, &LuaPage::replyShown);
    QTRY_VERIFY(field<QPushButton>("runButton")->isEnabled());
    page->run();
    QTRY_COMPARE(shown.size(), 1);
    QVERIFY2(Ask::asked().isEmpty(), qPrintable(Ask::asked().value(0).text));
    const QString reply = field<QPlainTextEdit>("replyPlainTextEdit")->toPlainText();
    QVERIFY2(!reply.startsWith(QStringLiteral("Error")), qPrintable(reply));
}

void LuaPageTest::writeWithoutKeysSaysSo()
{
    // A script that writes but is given no keys: the question does not end in an empty list.
    LuaPage* page = openPage();
    page->selectScript(QStringLiteral("refund"));
    m_answer = 0;
    QTRY_VERIFY(field<QPushButton>("runButton")->isEnabled());
    page->run();
    QCOMPARE(Ask::asked().size(), 1);
    const Ask::Question question = Ask::asked().first();
    QCOMPARE(question.kind, Ask::Kind::Confirm); // No, the safe answer, is the default
    QVERIFY2(question.text.contains(QStringLiteral("given no keys")), qPrintable(question.text));
    QVERIFY2(!question.text.contains(QStringLiteral("these keys")), qPrintable(question.text));
}

void LuaPageTest::screenshot()
{
    LuaPage* page = openPage();
    page->selectScript(QStringLiteral("hit"));
    field<QLineEdit>("keys1LineEdit")->setText(QStringLiteral("tg:{alice}:ban"));
    field<QLineEdit>("argv1LineEdit")->setText(QStringLiteral("peek"));
    QTest::qWait(300);
    QVERIFY(page->grab().save(QStringLiteral("/tmp/tollgate-lua.png")));
}

QTEST_MAIN(LuaPageTest)
#include "tst_LuaPage.moc"
