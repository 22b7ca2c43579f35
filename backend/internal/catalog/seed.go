package catalog

import (
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// seed builds the catalogue every resellerd serves. Ids are grouped so they read well in tests
// and examples: datacenter N has locations N1.., plans N01..; templates 1..5; features 1..4.
func seed() *Catalog {
	return &Catalog{
		datacenters: seedDatacenters(),
		locations:   seedLocations(),
		templates:   seedTemplates(),
		features:    seedFeatures(),
		plans:       seedPlans(),
		apps:        seedApps(),
		dollar: DollarRate{
			Base:      "USD",
			Currency:  "IRT",
			Price:     105_000,
			UpdatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		},
	}
}

// usd reads a decimal literal of the seed; a typo in the seed is a programming error.
func usd(s string) money.Micros {
	m, err := money.Parse(s)
	if err != nil {
		panic("catalog: bad seed amount " + s)
	}
	return m
}

func seedDatacenters() []Datacenter {
	return []Datacenter{
		{
			ID:          1,
			Name:        Text{FA: "تهران - آسیاتک", EN: "Tehran - Asiatech"},
			Description: Text{FA: "دیتاسنتر اصلی در ایران با اتصال داخلی پرسرعت", EN: "Main datacenter in Iran with fast domestic connectivity"},
			Status:      StatusAvailable, Enabled: true,
			Snapshots:    SnapshotSettings{PricePerGBMonth: usd("0.02"), PerInstanceCap: 3, CrossLocation: true, Restore: true},
			IPChangeCost: 0,
		},
		{
			ID:          2,
			Name:        Text{FA: "اروپا - فرانکفورت و آمستردام", EN: "Europe - Frankfurt and Amsterdam"},
			Description: Text{FA: "سرورهای اروپایی با ترافیک بین\u200cالمللی", EN: "European servers with international traffic"},
			Status:      StatusAvailable, Enabled: true,
			Snapshots:    SnapshotSettings{PricePerGBMonth: usd("0.05"), PerInstanceCap: 5, CrossLocation: false, Restore: true, Local: true},
			IPChangeCost: usd("0.5"),
		},
		{
			ID:          3,
			Name:        Text{FA: "ترکیه - استانبول", EN: "Turkey - Istanbul"},
			Description: Text{FA: "در حال نگهداری؛ سفارش جدید پذیرفته نمی\u200cشود", EN: "Under maintenance; no new orders"},
			Status:      "maintenance", Enabled: true,
			Snapshots:    SnapshotSettings{PricePerGBMonth: usd("0.03"), PerInstanceCap: 2, CrossLocation: false, Restore: false, Local: true},
			IPChangeCost: 0,
		},
		{
			ID:          4,
			Name:        Text{FA: "امارات - دبی", EN: "UAE - Dubai"},
			Description: Text{FA: "نیازمند احراز هویت", EN: "Identity check required"},
			Status:      StatusAvailable, Enabled: true, RequireKYC: true,
			Snapshots:    SnapshotSettings{PricePerGBMonth: usd("0.04"), PerInstanceCap: 3, CrossLocation: true, Restore: false},
			IPChangeCost: usd("1"),
		},
	}
}

func seedLocations() []Location {
	iran := Text{FA: "ایران", EN: "Iran"}
	return []Location{
		{ID: 11, DatacenterID: 1, Name: Text{FA: "تهران", EN: "Tehran"}, Country: iran, CountryCode: "IR", Flag: "🇮🇷", Active: true, Status: StatusAvailable},
		{ID: 12, DatacenterID: 1, Name: Text{FA: "تبریز", EN: "Tabriz"}, Country: iran, CountryCode: "IR", Flag: "🇮🇷", Active: true, Status: StatusAvailable},
		{ID: 21, DatacenterID: 2, Name: Text{FA: "فرانکفورت", EN: "Frankfurt"}, Country: Text{FA: "آلمان", EN: "Germany"}, CountryCode: "DE", Flag: "🇩🇪", Active: true, Status: StatusAvailable},
		{ID: 22, DatacenterID: 2, Name: Text{FA: "آمستردام", EN: "Amsterdam"}, Country: Text{FA: "هلند", EN: "Netherlands"}, CountryCode: "NL", Flag: "🇳🇱", Active: true, Status: StatusAvailable},
		{ID: 31, DatacenterID: 3, Name: Text{FA: "استانبول", EN: "Istanbul"}, Country: Text{FA: "ترکیه", EN: "Turkey"}, CountryCode: "TR", Flag: "🇹🇷", Active: true, Status: "maintenance"},
		{ID: 41, DatacenterID: 4, Name: Text{FA: "دبی", EN: "Dubai"}, Country: Text{FA: "امارات متحده عربی", EN: "United Arab Emirates"}, CountryCode: "AE", Flag: "🇦🇪", Active: true, Status: StatusAvailable},
	}
}

// Template ids.
const (
	tmplUbuntu2404 = 1
	tmplUbuntu2204 = 2
	tmplDebian12   = 3
	tmplRocky9     = 4
	tmplWindows    = 5
)

func seedTemplates() []Template {
	return []Template{
		{ID: tmplUbuntu2404, Name: Text{FA: "اوبونتو ۲۴.۰۴", EN: "Ubuntu 24.04"}, OSType: OSLinux, Family: "ubuntu"},
		{ID: tmplUbuntu2204, Name: Text{FA: "اوبونتو ۲۲.۰۴", EN: "Ubuntu 22.04"}, OSType: OSLinux, Family: "ubuntu"},
		{ID: tmplDebian12, Name: Text{FA: "دبیان ۱۲", EN: "Debian 12"}, OSType: OSLinux, Family: "debian"},
		{ID: tmplRocky9, Name: Text{FA: "راکی لینوکس ۹", EN: "Rocky Linux 9"}, OSType: OSLinux, Family: "rocky"},
		{ID: tmplWindows, Name: Text{FA: "ویندوز سرور ۲۰۲۲", EN: "Windows Server 2022"}, OSType: OSWindows, Family: "windows"},
	}
}

// Feature ids.
const (
	featIPv4    = 1
	featBackups = 2
	featIPv6    = 3
	featDDoS    = 4
)

func seedFeatures() []Feature {
	return []Feature{
		{ID: featIPv4, Name: Text{FA: "آی\u200cپی نسخه ۴ اختصاصی", EN: "Dedicated IPv4 address"}, Price: usd("0.0014"), RequiredForOSTypes: []string{OSWindows}},
		{ID: featBackups, Name: Text{FA: "پشتیبان\u200cگیری خودکار", EN: "Automatic backups"}, Price: usd("0.001"), RequiredForOSTypes: []string{}},
		{ID: featIPv6, Name: Text{FA: "آدرس\u200cهای IPv6 اضافه", EN: "Extra IPv6 addresses"}, Price: usd("0.0002"), RequiredForOSTypes: []string{}},
		{ID: featDDoS, Name: Text{FA: "محافظت در برابر DDoS", EN: "DDoS protection"}, Price: usd("0.003"), RequiredForOSTypes: []string{}},
	}
}

func seedPlans() []Plan {
	linux := []int64{tmplUbuntu2404, tmplUbuntu2204, tmplDebian12, tmplRocky9}
	all := []int64{tmplUbuntu2404, tmplUbuntu2204, tmplDebian12, tmplRocky9, tmplWindows}
	allFeatures := []int64{featIPv4, featBackups, featIPv6, featDDoS}
	everything := AllActions()
	noIPChangeNoConsole := without(everything, ActionChangeIP, ActionConsole)
	noConsole := without(everything, ActionConsole)
	plans := []Plan{
		// Tehran (location 11): 101 → 102 → 103, and 101/102 → 104.
		{ID: 101, Name: Text{FA: "استاندارد ۱ - تهران", EN: "Standard 1 - Tehran"}, Type: "standard", CPU: 1, MemoryGB: 1, DiskGB: 25,
			Price: usd("0.004"), DatacenterID: 1, LocationID: 11, TemplateIDs: linux, FeatureIDs: []int64{featIPv4, featBackups, featIPv6},
			Actions: everything, Traffic: Traffic{IncludedGB: 1000, AllowOverage: true, OveragePrice: usd("0.01")}},
		{ID: 102, Name: Text{FA: "استاندارد ۲ - تهران", EN: "Standard 2 - Tehran"}, Type: "standard", CPU: 2, MemoryGB: 2, DiskGB: 50,
			Price: usd("0.008"), DatacenterID: 1, LocationID: 11, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 2000, AllowOverage: true, OveragePrice: usd("0.01")}},
		{ID: 103, Name: Text{FA: "استاندارد ۴ - تهران", EN: "Standard 4 - Tehran"}, Type: "standard", CPU: 4, MemoryGB: 8, DiskGB: 160,
			Price: usd("0.028"), DatacenterID: 1, LocationID: 11, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 0}},
		{ID: 104, Name: Text{FA: "پردازشی ۴ - تهران", EN: "CPU-Optimized 4 - Tehran"}, Type: "cpu-optimized", CPU: 4, MemoryGB: 4, DiskGB: 80,
			Price: usd("0.022"), CreationFee: usd("0.5"), DatacenterID: 1, LocationID: 11,
			TemplateIDs: []int64{tmplUbuntu2404, tmplDebian12, tmplRocky9, tmplWindows}, FeatureIDs: []int64{featIPv4, featBackups, featDDoS},
			Actions: everything, Traffic: Traffic{IncludedGB: 3000, AllowOverage: true, OveragePrice: usd("0.008")}},
		// Tabriz (location 12): a plan without change_ip and console; 105 → 106.
		{ID: 105, Name: Text{FA: "اقتصادی ۱ - تبریز", EN: "Economy 1 - Tabriz"}, Type: "standard", CPU: 1, MemoryGB: 1, DiskGB: 20,
			Price: usd("0.0035"), DatacenterID: 1, LocationID: 12, TemplateIDs: []int64{tmplUbuntu2404, tmplDebian12},
			FeatureIDs: []int64{featIPv4, featBackups}, Actions: noIPChangeNoConsole, Traffic: Traffic{IncludedGB: 500}},
		{ID: 106, Name: Text{FA: "اقتصادی ۲ - تبریز", EN: "Economy 2 - Tabriz"}, Type: "standard", CPU: 2, MemoryGB: 2, DiskGB: 40,
			Price: usd("0.007"), DatacenterID: 1, LocationID: 12, TemplateIDs: []int64{tmplUbuntu2404, tmplDebian12, tmplWindows},
			FeatureIDs: []int64{featIPv4, featBackups}, Actions: noIPChangeNoConsole, Traffic: Traffic{IncludedGB: 1000}},
		// Tehran (location 11): the one arm64 plan; Linux only, and no resize path to or from it.
		{ID: 107, Name: Text{FA: "آرم ۲ - تهران", EN: "ARM 2 - Tehran"}, Type: "arm", CPU: 2, MemoryGB: 4, DiskGB: 40,
			Price: usd("0.005"), DatacenterID: 1, LocationID: 11, TemplateIDs: []int64{tmplUbuntu2404, tmplUbuntu2204, tmplDebian12},
			FeatureIDs: []int64{featIPv4, featBackups}, Actions: everything, Architecture: ArchARM64,
			Traffic: Traffic{IncludedGB: 2000, AllowOverage: true, OveragePrice: usd("0.01")}},
		// Frankfurt (location 21): 201 → 202 → 203.
		{ID: 201, Name: Text{FA: "استاندارد ۱ - فرانکفورت", EN: "Standard 1 - Frankfurt"}, Type: "standard", CPU: 1, MemoryGB: 2, DiskGB: 40,
			Price: usd("0.006"), DatacenterID: 2, LocationID: 21, TemplateIDs: linux, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 20000, AllowOverage: true, OveragePrice: usd("0.001")}},
		{ID: 202, Name: Text{FA: "استاندارد ۴ - فرانکفورت", EN: "Standard 4 - Frankfurt"}, Type: "standard", CPU: 4, MemoryGB: 8, DiskGB: 160,
			Price: usd("0.024"), CreationFee: usd("1"), DatacenterID: 2, LocationID: 21, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 20000, AllowOverage: true, OveragePrice: usd("0.001")}},
		{ID: 203, Name: Text{FA: "پردازشی ۸ - فرانکفورت", EN: "CPU-Optimized 8 - Frankfurt"}, Type: "cpu-optimized", CPU: 8, MemoryGB: 16, DiskGB: 240,
			Price: usd("0.09"), CreationFee: usd("2"), DatacenterID: 2, LocationID: 21, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 0}},
		// Amsterdam (location 22): 211 → 212.
		{ID: 211, Name: Text{FA: "استاندارد ۲ - آمستردام", EN: "Standard 2 - Amsterdam"}, Type: "standard", CPU: 2, MemoryGB: 4, DiskGB: 80,
			Price: usd("0.012"), CreationFee: usd("0.5"), DatacenterID: 2, LocationID: 22, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 10000, AllowOverage: true, OveragePrice: usd("0.002")}},
		{ID: 212, Name: Text{FA: "استاندارد ۸ - آمستردام", EN: "Standard 8 - Amsterdam"}, Type: "standard", CPU: 8, MemoryGB: 32, DiskGB: 320,
			Price: usd("0.048"), CreationFee: usd("1"), DatacenterID: 2, LocationID: 22, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 0}},
		// Istanbul (location 31, datacenter in maintenance): 301 → 302.
		{ID: 301, Name: Text{FA: "استاندارد ۲ - استانبول", EN: "Standard 2 - Istanbul"}, Type: "standard", CPU: 2, MemoryGB: 2, DiskGB: 50,
			Price: usd("0.009"), DatacenterID: 3, LocationID: 31, TemplateIDs: all, FeatureIDs: []int64{featIPv4, featBackups},
			Actions: noConsole, Traffic: Traffic{IncludedGB: 3000}},
		{ID: 302, Name: Text{FA: "استاندارد ۴ - استانبول", EN: "Standard 4 - Istanbul"}, Type: "standard", CPU: 4, MemoryGB: 8, DiskGB: 100,
			Price: usd("0.03"), DatacenterID: 3, LocationID: 31, TemplateIDs: all, FeatureIDs: []int64{featIPv4, featBackups},
			Actions: noConsole, Traffic: Traffic{IncludedGB: 5000}},
		// Dubai (location 41, identity check required): 401 → 402.
		{ID: 401, Name: Text{FA: "استاندارد ۲ - دبی", EN: "Standard 2 - Dubai"}, Type: "standard", CPU: 2, MemoryGB: 4, DiskGB: 60,
			Price: usd("0.015"), CreationFee: usd("1"), DatacenterID: 4, LocationID: 41, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 4000, AllowOverage: true, OveragePrice: usd("0.005")}},
		{ID: 402, Name: Text{FA: "پردازشی ۸ - دبی", EN: "CPU-Optimized 8 - Dubai"}, Type: "cpu-optimized", CPU: 8, MemoryGB: 16, DiskGB: 200,
			Price: usd("0.06"), CreationFee: usd("1"), DatacenterID: 4, LocationID: 41, TemplateIDs: all, FeatureIDs: allFeatures,
			Actions: everything, Traffic: Traffic{IncludedGB: 0}},
	}
	for i := range plans {
		if plans[i].Architecture == "" {
			plans[i].Architecture = ArchX86
		}
	}
	return plans
}

func without(all []string, drop ...string) []string {
	var out []string
	for _, a := range all {
		keep := true
		for _, d := range drop {
			if a == d {
				keep = false
			}
		}
		if keep {
			out = append(out, a)
		}
	}
	return out
}

func seedApps() []App {
	linux := []string{"ubuntu", "debian", "rocky"}
	web := []string{"80/tcp", "443/tcp"}
	domain := AppInput{Key: "DOMAIN", Label: Text{FA: "دامنه", EN: "Domain"}, Kind: KindDomain,
		Help: Text{FA: "خالی بماند تا نشانی IP استفاده شود", EN: "Leave empty to use the server's IP address"}}
	return []App{
		{ID: "docker", Name: Text{FA: "داکر", EN: "Docker"}, Category: "devops",
			Description: Text{FA: "موتور کانتینر داکر به همراه Compose", EN: "Docker Engine with Compose"},
			Requires:    []string{}, Conflicts: []string{}, Ports: []string{}, MinMemoryMB: 512, MinDiskGB: 10, OSFamilies: linux,
			Inputs: []AppInput{}},
		{ID: "gitlab", Name: Text{FA: "گیت\u200cلب", EN: "GitLab"}, Category: "devops",
			Description: Text{FA: "مخزن کد و CI/CD خودمیزبان", EN: "Self-hosted code hosting and CI/CD"},
			Requires:    []string{"docker"}, Conflicts: []string{"wordpress", "nextcloud"}, Ports: []string{"80/tcp", "443/tcp", "2222/tcp"},
			MinMemoryMB: 4096, MinDiskGB: 50, OSFamilies: []string{"ubuntu"},
			Inputs: []AppInput{domain,
				{Key: "ENABLE_REGISTRY", Label: Text{FA: "رجیستری کانتینر", EN: "Container registry"}, Kind: KindBoolean, Default: "false"}}},
		{ID: "iis", Name: Text{FA: "وب\u200cسرور IIS", EN: "IIS web server"}, Category: "web",
			Description: Text{FA: "وب\u200cسرور مایکروسافت برای ویندوز", EN: "Microsoft's web server for Windows"},
			Requires:    []string{}, Conflicts: []string{}, Ports: web, MinMemoryMB: 2048, MinDiskGB: 40, OSFamilies: []string{"windows"},
			Inputs: []AppInput{{Key: "SITE_NAME", Label: Text{FA: "نام سایت", EN: "Site name"}, Kind: KindText, Default: "Default Web Site"}}},
		{ID: "mysql", Name: Text{FA: "مای\u200cاس\u200cکیو\u200cال", EN: "MySQL"}, Category: "database",
			Description: Text{FA: "پایگاه داده MySQL 8", EN: "MySQL 8 database server"},
			Requires:    []string{}, Conflicts: []string{}, Ports: []string{"3306/tcp"}, MinMemoryMB: 1024, MinDiskGB: 10, OSFamilies: linux,
			Inputs: []AppInput{
				{Key: "ROOT_PASSWORD", Label: Text{FA: "گذرواژه root", EN: "Root password"}, Kind: KindPassword,
					Help: Text{FA: "خالی بماند تا ساخته شود", EN: "Generated when empty"}},
				{Key: "DATABASE", Label: Text{FA: "نام پایگاه داده", EN: "Database name"}, Kind: KindText, Default: "app"}}},
		{ID: "nextcloud", Name: Text{FA: "نکست\u200cکلاد", EN: "Nextcloud"}, Category: "storage",
			Description: Text{FA: "فضای ابری خصوصی برای فایل\u200cها", EN: "Private cloud storage for files"},
			Requires:    []string{"docker"}, Conflicts: []string{"wordpress", "gitlab"}, Ports: web, MinMemoryMB: 2048, MinDiskGB: 40,
			OSFamilies: []string{"ubuntu", "debian"},
			Inputs: []AppInput{domain,
				{Key: "ADMIN_PASSWORD", Label: Text{FA: "گذرواژه مدیر", EN: "Admin password"}, Kind: KindPassword,
					Help: Text{FA: "خالی بماند تا ساخته شود", EN: "Generated when empty"}}}},
		{ID: "openvpn", Name: Text{FA: "اوپن\u200cوی\u200cپی\u200cان", EN: "OpenVPN"}, Category: "vpn",
			Description: Text{FA: "سرور VPN با OpenVPN", EN: "OpenVPN server"},
			Requires:    []string{}, Conflicts: []string{"wireguard"}, Ports: []string{"1194/udp"}, MinMemoryMB: 256, MinDiskGB: 5, OSFamilies: linux,
			Inputs: []AppInput{{Key: "CLIENTS", Label: Text{FA: "تعداد کاربران", EN: "Client profiles"}, Kind: KindNumber, Default: "1"}}},
		{ID: "wireguard", Name: Text{FA: "وایرگارد", EN: "WireGuard"}, Category: "vpn",
			Description: Text{FA: "سرور VPN سبک و سریع", EN: "Fast, lightweight VPN server"},
			Requires:    []string{}, Conflicts: []string{"openvpn"}, Ports: []string{"51820/udp"}, MinMemoryMB: 256, MinDiskGB: 5, OSFamilies: linux,
			Inputs: []AppInput{{Key: "PEERS", Label: Text{FA: "تعداد همتا", EN: "Peers"}, Kind: KindNumber, Default: "1"}}},
		{ID: "wordpress", Name: Text{FA: "وردپرس", EN: "WordPress"}, Category: "cms",
			Description: Text{FA: "سیستم مدیریت محتوای وردپرس", EN: "WordPress content management system"},
			Requires:    []string{"mysql"}, Conflicts: []string{"nextcloud", "gitlab"}, Ports: web, MinMemoryMB: 1024, MinDiskGB: 15,
			OSFamilies: []string{"ubuntu", "debian"},
			Inputs: []AppInput{domain,
				{Key: "ADMIN_EMAIL", Label: Text{FA: "ایمیل مدیر", EN: "Admin email"}, Kind: KindEmail, Default: "admin@example.com"},
				{Key: "SITE_TITLE", Label: Text{FA: "عنوان سایت", EN: "Site title"}, Kind: KindText, Default: "My WordPress"}}},
	}
}
