<?php

declare(strict_types=1);

// The package's classes and the tests' own, without a vendor/ folder (tests run offline).
spl_autoload_register(static function (string $class): void {
    foreach (['Tollgate\\Tests\\' => __DIR__ . '/', 'Tollgate\\' => dirname(__DIR__) . '/src/'] as $prefix => $dir) {
        if (str_starts_with($class, $prefix)) {
            $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});
// Predis from Debian's php-predis (or a Composer install next to the tests).
if (!class_exists(\Predis\Client::class)) {
    foreach (['/usr/share/php/Predis/Autoloader.php', dirname(__DIR__) . '/vendor/predis/predis/src/Autoloader.php'] as $autoloader) {
        if (is_file($autoloader)) {
            require_once $autoloader;
            \Predis\Autoloader::register();
            break;
        }
    }
}
