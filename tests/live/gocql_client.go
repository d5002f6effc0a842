// A small gocql program against `faultline live`'s CQL front: keyspace,
// table, insert, a prepared and paged select, then (after the test kills the
// store through the control socket) the same queries again once gocql has
// reconnected. Built in GOPATH mode from Debian's
// golang-github-gocql-gocql-dev.
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/gocql/gocql"
)

func must(err error, what string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "gocql_client: %s: %v\n", what, err)
		os.Exit(1)
	}
}

func control(socket, line string) {
	conn, err := net.Dial("unix", socket)
	must(err, "control socket")
	defer conn.Close()
	_, err = conn.Write([]byte(line + "\n"))
	must(err, "control write")
	buffer := make([]byte, 4096)
	n, _ := conn.Read(buffer)
	fmt.Printf("prompt: %s", buffer[:n])
}

func countRows(session *gocql.Session) int {
	iter := session.Query("SELECT id, name FROM gostore.things").PageSize(2).Iter()
	var id int
	var name string
	rows := 0
	for iter.Scan(&id, &name) {
		rows++
	}
	must(iter.Close(), "paged select")
	return rows
}

func main() {
	port, err := strconv.Atoi(os.Args[1])
	must(err, "port")
	cluster := gocql.NewCluster("127.0.0.1")
	cluster.Port = port
	cluster.ProtoVersion = 4
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.DisableInitialHostLookup = true
	session, err := cluster.CreateSession()
	must(err, "create session")
	must(session.Query(`CREATE KEYSPACE IF NOT EXISTS gostore WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).Exec(), "create keyspace")
	must(session.Query(`CREATE TABLE IF NOT EXISTS gostore.things (id int PRIMARY KEY, name text)`).Exec(), "create table")
	for i := 0; i < 5; i++ {
		must(session.Query(`INSERT INTO gostore.things (id, name) VALUES (?, ?)`, i, fmt.Sprintf("thing%d", i)).Exec(), "insert")
	}
	var name string
	must(session.Query(`SELECT name FROM gostore.things WHERE id = ?`, 3).Scan(&name), "select one")
	fmt.Printf("name of 3: %s\n", name)
	fmt.Printf("rows: %d\n", countRows(session))
	if len(os.Args) > 2 {
		control(os.Args[2], "kill yugabyte")
		deadline := time.Now().Add(60 * time.Second)
		for {
			err = session.Query(`INSERT INTO gostore.things (id, name) VALUES (?, ?)`, 9, "after").Exec()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				must(err, "insert after the store restarted")
			}
			time.Sleep(500 * time.Millisecond)
		}
		fmt.Printf("rows after restart: %d\n", countRows(session))
	}
	session.Close()
}
