# testinfra checks of a Debian 12 server of resellerd --machines sandbox on a real image, with the
# mysql and wordpress apps installed: run by TestMachineOnARealImage over resellerd's SSH server
# (testinfra's paramiko backend, password login), as a user's checks of their server would be.


def test_the_distribution(host):
    assert host.system_info.distribution == "debian"
    assert host.system_info.release.startswith("12")
    assert host.file("/etc/os-release").contains("ID=debian")


def test_the_packages(host):
    for name in ("python3", "mariadb-server", "wordpress", "apache2"):
        assert host.package(name).is_installed, name


def test_the_services_listen(host):
    # SSH and Apache on every address (IPv6 sockets taking IPv4 too), MariaDB on IPv4's.
    for spec in ("tcp://22", "tcp://80", "tcp://0.0.0.0:3306"):
        assert host.socket(spec).is_listening, spec


def test_the_products_run(host):
    assert host.process.filter(comm="mariadbd"), "no mariadbd"
    assert host.process.filter(comm="apache2"), "no apache2"


def test_the_app_secrets_are_private(host):
    f = host.file("/etc/reseller/apps/wordpress/ADMIN_PASSWORD")
    assert f.exists and f.mode == 0o600 and f.user == "root"
