#!/usr/bin/env python3
# Session 21: re-simulate saved predict rounds (profile + predict CSV) for one transport with
# another hopsim binary; per cell the near or apart view as the round modelled it.
# usage: resim.py BIN TRANSPORT round-prefix... ; prints per-cell predicted vs native
import csv,json,subprocess,sys,os,collections,statistics as st,concurrent.futures as cf
B=sys.argv[1]; T=sys.argv[2]; rounds=sys.argv[3:]
D='/work/main/docs/data/host-predict/'
def apart_profile(src,dst):
    j=json.load(open(src)); p=j['params']
    for t in ['xwrite_bw','xcopy_bw','xcma_bw','xread_bw']:
        p[t]['value']=p[t+'_apart']['value']
    ah=p['apart_handover']['value']; c2c=p['c2c_latency']['value']; extra=max(0,ah-c2c)
    for s in ['step8_double','step8_cma','step8_zero']:
        if s in p and p[s]['value']>0: p[s]['value']+=extra
    p['c2c_latency']['value']=max(c2c,ah)
    json.dump(j,open(dst,'w'))
def sim(prof,out):
    subprocess.run([B,'host','simulate','--profile',prof,'--transport',T,'--csv',out],stdout=subprocess.DEVNULL,check=True)
    return {(int(r['procs']),int(r['size'])):float(r['MBps'] if 'MBps' in r else r['predicted_MBps']) for r in csv.DictReader(open(out))}
def one(r):
    tag=os.path.basename(r)
    prof=D+r+'-profile.json'; ap='/tmp/rs-'+tag+'-apart.json'
    near=sim(prof,'/tmp/rs-'+tag+'-near.csv')
    try:
        apart_profile(prof,ap); far=sim(ap,'/tmp/rs-'+tag+'-far.csv')
    except Exception as e: far=None
    res=[]
    for row in csv.DictReader(open(D+r+'-predict.csv')):
        if row['transport']!=T: continue
        k=(int(row['procs']),int(row['size']))
        pred=(far if row['modelled_apart']=='1' and far else near)[k]
        res.append((k,float(row['native_MBps']),pred,float(row['predicted_MBps'])))
    return tag,res
allres=collections.defaultdict(list); tot=0; w=0; same=0
with cf.ThreadPoolExecutor(2) as ex:
    for tag,res in ex.map(one,rounds):
        n=0
        for k,nat,pred,old in res:
            e=pred/nat-1; allres[k].append(e); n+=abs(e)<=0.25; same+=abs(pred/old-1)<1e-3
        tot+=len(res); w+=n
        print(tag,n,'/',len(res))
for k in sorted(allres): print(k,'med %+.3f within %d/%d'%(st.median(allres[k]),sum(abs(e)<=0.25 for e in allres[k]),len(allres[k])))
print('TOTAL',w,'/',tot,' identical-to-committed',same)
