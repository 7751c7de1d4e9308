// ui/common/Ask without a test hook: real message boxes, opened without a nested event loop,
// answering through callbacks, and silent when their parent goes away first.

#include "ui/common/Ask.h"

#include <QAbstractButton>
#include <QMessageBox>
#include <QWidget>
#include <QtTest>
#include <memory>

using tollgate::ui::Ask;

class AskTest : public QObject
{
    Q_OBJECT

private:
    static QMessageBox* openBox(QWidget* parent)
    {
        QMessageBox* box = nullptr;
        if (!QTest::qWaitFor([&] { return (box = parent->findChild<QMessageBox*>()) != nullptr; }))
            return nullptr;
        return box;
    }

private Q_SLOTS:
    void init()
    {
        Ask::setHook({});
        Ask::clearAsked();
    }

    void confirmReturnsAtOnceAndAnswersLater()
    {
        QWidget parent;
        parent.show();
        bool yes = false;
        Ask::confirm(&parent, QStringLiteral("Delete keys"), QStringLiteral("Delete k?"),
                     [&yes] { yes = true; });
        QVERIFY(!yes); // no nested loop: we are back before anyone answered
        QMessageBox* box = openBox(&parent);
        QVERIFY(box);
        QCOMPARE(box->text(), QStringLiteral("Delete k?"));
        box->button(QMessageBox::Yes)->click();
        QTRY_VERIFY(yes);
        QCOMPARE(Ask::asked().size(), 1);
    }

    void noRunsNothing()
    {
        QWidget parent;
        parent.show();
        bool yes = false;
        Ask::confirm(&parent, QStringLiteral("Reset"), QStringLiteral("Reset?"), [&yes] { yes = true; });
        QMessageBox* box = openBox(&parent);
        QVERIFY(box);
        box->button(QMessageBox::No)->click();
        QTest::qWait(50);
        QVERIFY(!yes);
    }

    void chooseReportsTheIndex()
    {
        QWidget parent;
        parent.show();
        int chosen = -2;
        Ask::choose(&parent, QStringLiteral("Policy changed"), QStringLiteral("?"),
                    {QStringLiteral("Reload theirs"), QStringLiteral("Overwrite with mine"),
                     QStringLiteral("Cancel")},
                    [&chosen](int index) { chosen = index; });
        QMessageBox* box = openBox(&parent);
        QVERIFY(box);
        for (QAbstractButton* button : box->buttons()) {
            if (button->text() == QStringLiteral("Overwrite with mine"))
                button->click();
        }
        QTRY_COMPARE(chosen, 1);
    }

    void parentGoneMeansNoAnswer()
    {
        auto parent = std::make_unique<QWidget>();
        parent->show();
        bool called = false;
        Ask::confirm(parent.get(), QStringLiteral("Ban"), QStringLiteral("Ban?"),
                     [&called] { called = true; });
        QVERIFY(openBox(parent.get()));
        parent.reset(); // the page closed while the question was open
        QTest::qWait(50);
        QVERIFY(!called);
    }
};

QTEST_MAIN(AskTest)
#include "tst_Ask.moc"
