package analysis

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viva-interviews/viva/internal/words"
)

// tech is one entry of the technology dictionary.
type tech struct {
	// name is the canonical spelling ("PostgreSQL").
	name string
	// aliases are other spellings, matched like the name ("postgres").
	aliases []string
	// exact entries match only as written (capitals included), because
	// in lower case they are everyday words ("Go", "React", "Spring").
	exact bool
	// loose are spellings of an exact entry matched in any case
	// ("golang").
	loose []string
}

// technologies are the skills the rules recognise: languages, frameworks,
// databases, clouds and tools.
var technologies = []tech{
	// Languages.
	{name: "Go", exact: true, loose: []string{"Golang"}}, {name: "Python"}, {name: "Java"}, {name: "JavaScript", aliases: []string{"JS", "ECMAScript"}},
	{name: "TypeScript", aliases: []string{"TS"}, exact: true}, {name: "Ruby"}, {name: "PHP"}, {name: "C++", aliases: []string{"cpp"}}, {name: "C#", aliases: []string{"csharp"}},
	{name: "Rust"}, {name: "Kotlin"}, {name: "Swift", exact: true}, {name: "Objective-C"}, {name: "Scala"}, {name: "Elixir"}, {name: "Erlang"},
	{name: "Haskell"}, {name: "Clojure"}, {name: "Perl"}, {name: "Lua"}, {name: "Dart", exact: true}, {name: "MATLAB"}, {name: "Fortran"},
	{name: "COBOL"}, {name: "F#"}, {name: "OCaml"}, {name: "Groovy", exact: true}, {name: "Bash", aliases: []string{"shell scripting"}}, {name: "PowerShell"},
	{name: "SQL"}, {name: "GraphQL"}, {name: "HTML"}, {name: "CSS"}, {name: "Sass", aliases: []string{"SCSS"}}, {name: "Solidity"}, {name: "Zig", exact: true},
	// Frontend.
	{name: "React", exact: true, loose: []string{"React.js", "ReactJS"}}, {name: "React Native"}, {name: "Vue", aliases: []string{"Vue.js", "VueJS"}}, {name: "Angular", exact: true},
	{name: "Svelte"}, {name: "Next.js", aliases: []string{"NextJS"}}, {name: "Nuxt"}, {name: "Redux"}, {name: "jQuery"}, {name: "Tailwind", aliases: []string{"Tailwind CSS"}},
	{name: "Webpack"}, {name: "Vite", exact: true}, {name: "Flutter"}, {name: "SwiftUI"}, {name: "Ember", exact: true},
	// Backend frameworks and runtimes.
	{name: "Node.js", aliases: []string{"Node"}, exact: true, loose: []string{"Node.js", "NodeJS"}}, {name: "Deno"}, {name: "Express", exact: true, loose: []string{"Express.js"}}, {name: "NestJS"},
	{name: "Django"}, {name: "Flask"}, {name: "FastAPI"}, {name: "Ruby on Rails", aliases: []string{"Rails"}, exact: true, loose: []string{"Ruby on Rails"}}, {name: "Spring Boot"},
	{name: "Spring", exact: true}, {name: ".NET", aliases: []string{"dotnet", "ASP.NET"}}, {name: "Laravel"}, {name: "Symfony"}, {name: "Phoenix", exact: true},
	{name: "gRPC"}, {name: "REST", aliases: []string{"RESTful"}, exact: true}, {name: "Gin", exact: true}, {name: "Celery"}, {name: "Hibernate"},
	// Data stores.
	{name: "PostgreSQL", aliases: []string{"Postgres"}}, {name: "MySQL"}, {name: "MariaDB"}, {name: "SQLite"}, {name: "Oracle", exact: true},
	{name: "SQL Server", aliases: []string{"MSSQL"}}, {name: "MongoDB", aliases: []string{"Mongo"}}, {name: "Redis"}, {name: "Memcached"},
	{name: "Cassandra"}, {name: "DynamoDB"}, {name: "Elasticsearch", aliases: []string{"OpenSearch"}}, {name: "Neo4j"},
	{name: "CockroachDB"}, {name: "ClickHouse"}, {name: "Snowflake", exact: true}, {name: "BigQuery"}, {name: "Redshift"}, {name: "InfluxDB"},
	{name: "Firebase"}, {name: "Supabase"}, {name: "HBase"}, {name: "CouchDB"}, {name: "TimescaleDB"},
	// Messaging and data processing.
	{name: "Kafka"}, {name: "RabbitMQ"}, {name: "NATS", exact: true}, {name: "SQS"}, {name: "Pub/Sub"}, {name: "Kinesis"}, {name: "Spark", exact: true, loose: []string{"PySpark", "Apache Spark"}},
	{name: "Hadoop"}, {name: "Flink"}, {name: "Airflow"}, {name: "dbt", exact: true}, {name: "Pandas"}, {name: "NumPy"}, {name: "Databricks"},
	// Machine learning.
	{name: "TensorFlow"}, {name: "PyTorch"}, {name: "scikit-learn", aliases: []string{"sklearn"}}, {name: "Keras"}, {name: "Hugging Face", aliases: []string{"HuggingFace"}},
	{name: "LangChain"}, {name: "OpenAI API"}, {name: "MLflow"},
	// Clouds and infrastructure.
	{name: "AWS", aliases: []string{"Amazon Web Services"}}, {name: "GCP", aliases: []string{"Google Cloud"}}, {name: "Azure"}, {name: "DigitalOcean"},
	{name: "Heroku"}, {name: "Vercel"}, {name: "Netlify"}, {name: "Cloudflare"}, {name: "Lambda", exact: true, loose: []string{"AWS Lambda"}}, {name: "S3", exact: true},
	{name: "EC2"}, {name: "ECS"}, {name: "EKS"}, {name: "GKE"}, {name: "Docker"}, {name: "Kubernetes", aliases: []string{"k8s"}}, {name: "Helm", exact: true},
	{name: "Terraform"}, {name: "Pulumi"}, {name: "Ansible"}, {name: "Chef", exact: true}, {name: "Puppet", exact: true}, {name: "Nginx"}, {name: "Apache", exact: true},
	{name: "Linux"}, {name: "Istio"}, {name: "Envoy", exact: true}, {name: "Consul", exact: true}, {name: "Vault", exact: true}, {name: "OpenShift"},
	// Delivery, observability and tools.
	{name: "Git"}, {name: "GitHub Actions"}, {name: "GitLab CI", aliases: []string{"GitLab"}}, {name: "Jenkins"}, {name: "CircleCI"}, {name: "ArgoCD", aliases: []string{"Argo CD"}},
	{name: "Prometheus"}, {name: "Grafana"}, {name: "Datadog"}, {name: "New Relic"}, {name: "Sentry", exact: true}, {name: "OpenTelemetry"}, {name: "Splunk"},
	{name: "Jira"}, {name: "Figma"}, {name: "Postman"}, {name: "Jest", exact: true}, {name: "Cypress", exact: true}, {name: "Playwright"}, {name: "Selenium"},
	{name: "pytest"}, {name: "JUnit"}, {name: "Storybook"}, {name: "Bazel"}, {name: "Gradle"}, {name: "Maven"},
	// Practices often listed as skills.
	{name: "Microservices", aliases: []string{"microservice"}}, {name: "CI/CD"}, {name: "TDD"}, {name: "Machine Learning", aliases: []string{"ML"}, exact: false},
	{name: "WebSockets", aliases: []string{"WebSocket"}}, {name: "WebRTC"}, {name: "OAuth"}, {name: "Unity", exact: true}, {name: "Tableau"}, {name: "Power BI"},
}

// dictEntry is one spelling of a technology, ready to match.
type dictEntry struct {
	name  string
	text  string // lower case unless exact
	exact bool
}

// dictionary lists every spelling, longest first so "Spring Boot" wins
// over "Spring" and "React Native" over "React".
var dictionary = func() []dictEntry {
	var out []dictEntry
	for _, t := range technologies {
		for _, s := range append([]string{t.name}, t.aliases...) {
			e := dictEntry{name: t.name, text: s, exact: t.exact}
			if !t.exact {
				e.text = strings.ToLower(s)
			}
			out = append(out, e)
		}
		for _, s := range t.loose {
			out = append(out, dictEntry{name: t.name, text: strings.ToLower(s)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}()

// skillMatch is a technology found in a text.
type skillMatch struct {
	name       string
	start, end int // byte offsets in the text
}

// goNotLanguage are words that, after "Go", make it the verb ("Go to the
// next room"), not the language.
var goNotLanguage = words.Set("to ahead back through on for live out over in into up down away beyond further deeper with and get there here a an the check see find ask talk fix")

// findSkills finds the dictionary's technologies in text, each once, in
// order of first appearance. Matches are word-bounded and, except for
// exact entries, case-insensitive.
func findSkills(text string) []skillMatch {
	lower := strings.ToLower(text)
	taken := make([]bool, len(text)+1)
	seen := map[string]bool{}
	var out []skillMatch
	for _, e := range dictionary {
		hay := lower
		if e.exact {
			hay = text
		}
		for from := 0; from < len(hay); {
			k := strings.Index(hay[from:], e.text)
			if k < 0 {
				break
			}
			start, end := from+k, from+k+len(e.text)
			from = end
			if !bounded(text, start, end) || taken[start] || taken[end-1] {
				continue
			}
			if e.name == "Go" && e.text == "Go" && !goIsLanguage(text, start, end) {
				continue
			}
			for i := start; i < end; i++ {
				taken[i] = true
			}
			if !seen[e.name] {
				seen[e.name] = true
				out = append(out, skillMatch{name: e.name, start: start, end: end})
			} else {
				for i := range out {
					if out[i].name == e.name && start < out[i].start {
						out[i].start, out[i].end = start, end
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// bounded reports whether text[start:end] stands as a word: no letter or
// digit touches it on either side (a final dot, as in "Node.js.", does
// not count).
func bounded(text string, start, end int) bool {
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(text[:start])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' && start > 1 && !isSpace(text[start-2]) {
			return false
		}
	}
	if end < len(text) {
		r, _ := utf8.DecodeRuneInString(text[end:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '+' || r == '#' {
			return false
		}
	}
	return true
}

// goIsLanguage decides whether "Go" at text[start:end] names the
// language. Inside a sentence a capital makes it the language ("moved from
// Go to Rust"); at a sentence's start it is the verb when the next word
// says so ("Go ahead", "Go to the next one").
func goIsLanguage(text string, start, end int) bool {
	if !sentenceStart(text, start) {
		return true
	}
	if strings.HasPrefix(text[end:], "-") {
		return false // "Go-live"
	}
	rest := strings.TrimLeft(text[end:], " ")
	next, _, _ := strings.Cut(rest, " ")
	next = strings.ToLower(strings.TrimRight(next, ".,;:!?)"))
	if next == "" {
		return true
	}
	return !goNotLanguage[next]
}

// skillNames are the names of the matches.
func skillNames(ms []skillMatch) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.name
	}
	return out
}

// Technologies are the technologies of the dictionary that text names, each
// once, in order of first mention ("Kafka", "PostgreSQL").
func Technologies(text string) []string {
	var out []string
	for _, m := range findSkills(text) {
		out = append(out, m.name)
	}
	return out
}

// Lacks are the technologies text says the speaker lacks or has never
// used ("I have never used Rust"), as the offline answer rules find them.
func Lacks(text string) []string { return findAbsent(parse(text), AnswerInput{}) }
