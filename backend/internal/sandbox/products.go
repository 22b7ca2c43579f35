package sandbox

// The real products an app installs where the machine's image carries them (`resellerd image
// build --apps`): the install script tests for the product and runs it, configured from the
// app's inputs, or falls back to the stand-in (standIn). There is no systemd in a machine, so
// each product is started by its own scripts (mysqld_safe, apache2ctl) from its boot script in
// rcDir, which runs again after every boot.

// product is one app's real product: how the install script finds it in the image, its name
// for the log, its boot script (which starts it unless it runs, and waits until it answers), and
// the setup the install runs once it is up (idempotent: an install may be retried).
type product struct {
	name   string
	detect string // a shell condition, true where the image carries the product
	rc     string
	setup  string
}

// productOf is app's real product, if it has one.
func productOf(app string) (product, bool) {
	switch app {
	case "mysql":
		return product{name: "MariaDB", detect: mariadbDetect, rc: mariadbRC, setup: mariadbSetup}, true
	case "wordpress":
		return product{name: "WordPress on Apache and PHP", detect: wordpressDetect, rc: wordpressRC, setup: wordpressSetup}, true
	}
	return product{}, false
}

// sqlString is a shell function quoting its argument as a single-quoted SQL (and PHP) string
// literal: backslashes and quotes escaped, so no input can end the literal.
const sqlString = `sqlstr() { printf "'%s'" "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e "s/'/\\\\'/g")"; }
sqlid() { printf '` + "`%s`" + `' "$(printf '%s' "$1" | sed -e 's/` + "`/``" + `/g')"; }
`

const mariadbDetect = `command -v mysqld_safe >/dev/null 2>&1 && command -v mariadb >/dev/null 2>&1`

// mariadbRC starts MariaDB listening on every address, names not resolved (root@'%' must match
// the host's address, and 127.0.0.1 must not be taken for localhost's unix-socket root).
const mariadbRC = `#!/bin/sh
# MariaDB for the mysql app, started by resellerd --machines sandbox at every boot (no systemd).
set -eu
mkdir -p /run/mysqld /var/log/mysql
chown mysql:mysql /run/mysqld /var/log/mysql
[ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
if ! mariadb-admin ping >/dev/null 2>&1; then
	setsid mysqld_safe </dev/null >/dev/null 2>&1 &
fi
i=0
until mariadb-admin ping >/dev/null 2>&1; do
	i=$((i + 1))
	if [ "$i" -gt 600 ]; then
		echo 'MariaDB did not answer within 60 s:'
		tail -n 20 /var/log/mysql/error.log 2>/dev/null || true
		exit 1
	fi
	sleep 0.1
done
echo 'MariaDB listening on port 3306'
`

// mariadbSetup configures the server (before its boot script first starts it), then gives root
// from any address the ROOT_PASSWORD input and creates the DATABASE input. Root on the
// machine's own socket keeps Debian's unix_socket login, which the boot scripts use.
const mariadbSetup = `cat > /etc/mysql/mariadb.conf.d/99-reseller.cnf <<'RESELLER_CNF'
[mysqld]
bind-address = 0.0.0.0
skip-name-resolve
log-error = /var/log/mysql/error.log
RESELLER_CNF
if mariadb-admin ping >/dev/null 2>&1; then mariadb-admin shutdown; fi
/etc/reseller/rc.d/mysql
` + sqlString + `pw=$(sqlstr "$(cat "$dir/ROOT_PASSWORD")")
db=$(sqlid "$(cat "$dir/DATABASE")")
mariadb -uroot <<RESELLER_SQL
CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY $pw;
ALTER USER 'root'@'%' IDENTIFIED BY $pw;
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
CREATE DATABASE IF NOT EXISTS $db;
FLUSH PRIVILEGES;
RESELLER_SQL
echo "root may log in from any address with ROOT_PASSWORD; database $db created"
mariadb -uroot -N -e 'SELECT VERSION()'
`

const wordpressDetect = `[ -f /usr/share/wordpress/wp-settings.php ] && command -v apache2ctl >/dev/null 2>&1 && command -v php >/dev/null 2>&1 && mariadb-admin ping >/dev/null 2>&1`

// wordpressRC starts Apache (with PHP) unless it runs.
const wordpressRC = `#!/bin/sh
# Apache serving WordPress for the wordpress app, started by resellerd --machines sandbox at
# every boot (no systemd).
set -eu
mkdir -p /run/apache2 /run/lock/apache2 /var/log/apache2
if ! { [ -f /run/apache2/apache2.pid ] && kill -0 "$(cat /run/apache2/apache2.pid)" 2>/dev/null; }; then
	setsid apache2ctl start </dev/null
fi
echo 'Apache serving WordPress on port 80'
`

// wordpressSetup puts Debian's WordPress on the mysql app's database (a user of its own, its
// password generated), serves it at whatever address the machine is reached by (change_ip
// keeps it working), and installs it with SITE_TITLE and ADMIN_EMAIL (no setup wizard), the
// admin password generated and kept beside the inputs.
const wordpressSetup = sqlString + `newsecret() { (umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=\n' > "$1"); }
[ -s "$dir/ADMIN_PASSWORD" ] || newsecret "$dir/ADMIN_PASSWORD"
[ -s "$dir/DB_PASSWORD" ] || newsecret "$dir/DB_PASSWORD"
chmod 0600 "$dir/ADMIN_PASSWORD" "$dir/DB_PASSWORD"
dbname=$(cat /etc/reseller/apps/mysql/DATABASE)
db=$(sqlid "$dbname")
dbpw=$(sqlstr "$(cat "$dir/DB_PASSWORD")")
mariadb -uroot <<RESELLER_SQL
CREATE DATABASE IF NOT EXISTS $db;
CREATE USER IF NOT EXISTS 'wordpress'@'%' IDENTIFIED BY $dbpw;
ALTER USER 'wordpress'@'%' IDENTIFIED BY $dbpw;
GRANT ALL PRIVILEGES ON $db.* TO 'wordpress'@'%';
FLUSH PRIVILEGES;
RESELLER_SQL
mkdir -p /etc/wordpress
(umask 027; cat > /etc/wordpress/config-default.php <<RESELLER_PHP
<?php
// Written by resellerd --machines sandbox's wordpress app.
define('DB_NAME', $(sqlstr "$dbname"));
define('DB_USER', 'wordpress');
define('DB_PASSWORD', $dbpw);
define('DB_HOST', '127.0.0.1');
define('WP_CONTENT_DIR', '/var/lib/wordpress/wp-content');
\$reseller_host = preg_replace('/[^A-Za-z0-9.:\\[\\]-]/', '', \$_SERVER['HTTP_HOST'] ?? 'localhost');
define('WP_HOME', 'http://' . \$reseller_host);
define('WP_SITEURL', 'http://' . \$reseller_host);
\$table_prefix = 'wp_';
RESELLER_PHP
)
chgrp www-data /etc/wordpress/config-default.php
cat > /etc/apache2/sites-available/reseller-wordpress.conf <<'RESELLER_SITE'
<VirtualHost *:80>
	DocumentRoot /usr/share/wordpress
	Alias /wp-content /var/lib/wordpress/wp-content
	<Directory /usr/share/wordpress>
		Options FollowSymLinks
		AllowOverride Limit Options FileInfo
		DirectoryIndex index.php
		Require all granted
	</Directory>
	<Directory /var/lib/wordpress/wp-content>
		Options FollowSymLinks
		Require all granted
	</Directory>
</VirtualHost>
RESELLER_SITE
a2dissite -q 000-default >/dev/null 2>&1 || true
a2ensite -q reseller-wordpress >/dev/null
echo 'ServerName localhost' > /etc/apache2/conf-available/reseller-servername.conf
a2enconf -q reseller-servername >/dev/null
WP_TITLE=$(cat "$dir/SITE_TITLE") WP_EMAIL=$(cat "$dir/ADMIN_EMAIL") WP_PASSWORD=$(cat "$dir/ADMIN_PASSWORD") \
php -d display_errors=stderr -d error_reporting=E_ERROR <<'RESELLER_INSTALL'
<?php
$_SERVER['HTTP_HOST'] = 'localhost';
$_SERVER['REQUEST_URI'] = '/';
define('WP_INSTALLING', true);
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
if (is_blog_installed()) {
	update_option('blogname', getenv('WP_TITLE'));
	update_option('admin_email', getenv('WP_EMAIL'));
	echo "WordPress was installed already: title and admin email updated\n";
	exit(0);
}
$r = wp_install(getenv('WP_TITLE'), 'admin', getenv('WP_EMAIL'), true, '', wp_slash(getenv('WP_PASSWORD')));
if (is_wp_error($r)) { fwrite(STDERR, $r->get_error_message() . "\n"); exit(1); }
echo "WordPress installed: user admin, its password in /etc/reseller/apps/wordpress/ADMIN_PASSWORD\n";
RESELLER_INSTALL
/etc/reseller/rc.d/wordpress
`
